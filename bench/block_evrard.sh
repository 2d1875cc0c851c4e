#!/usr/bin/env bash
# Global against block time steps on the Evrard collapse (setups/evrard.yaml at N particles to
# T_END), one backend: substeps, particle updates (force evaluations), wall time of the run loop
# and max |dE/E0| at the synchronisation points. One line per scheme, for docs/PERFORMANCE.md.
#
#   bench/block_evrard.sh MPSPH_BINARY OUTDIR DEVICE N T_END [DT_MAX] [extra --set ...]
#
# The block runs use timestep.dt_max = DT_MAX (default 0.05) as the segment length; the global
# runs take the same criteria (Courant 0.3 of the seed) with one step for all particles.
# SCHEMES="block" (environment) runs only the block scheme; TAG=name (environment) names a variant
# (its run directories end in _TAG and its lines carry the tag).
set -uo pipefail
BIN=${1:?usage: bench/block_evrard.sh MPSPH_BINARY OUTDIR DEVICE N T_END [DT_MAX] [--set ...]}
OUT=${2:?}
DEVICE=${3:?}
N=${4:?}
T_END=${5:?}
DT_MAX=${6:-0.05}
shift 6 2>/dev/null || shift $#
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
printf "%-6s %-8s %-7s %9s %13s %9s %11s\n" device N scheme substeps updates wall_s max_dE_E0
for scheme in ${SCHEMES:-global block}; do
  dir=$OUT/evrard_${DEVICE}_${N}_${scheme}${TAG:+_$TAG}
  extra=(--set timestep.scheme=$scheme)
  [ "$scheme" = block ] && extra+=(--set timestep.dt_max=$DT_MAX)
  "$BIN" run "$SRC/setups/evrard.yaml" --device "$DEVICE" --output-dir "$dir" \
    --set setup.n_particles="$N" --set run.t_end="$T_END" --set "run.snapshot_times=[0.8]" \
    "${extra[@]}" "$@" > "$dir.log" 2>&1 || { echo "run failed: $dir.log"; tail -5 "$dir.log"; continue; }
  wall=$(grep -o "wall [0-9.]* s" "$dir.log" | tail -1 | awk '{print $2}')
  steps=$(awk '/^steps:/ {print $2}' "$dir/timing.txt")
  updates=$(awk '/^particle updates:/ {print $3}' "$dir/timing.txt")
  err=$(awk -F, '!/^#/ && !/^step/ { e = $(NF-6); if (e < 0) e = -e; if (e > m) m = e } END { printf "%.3g", m }' "$dir/energy.csv")
  printf "%-6s %-8s %-7s %9s %13s %9.2f %11s\n" "$DEVICE" "$N" "$scheme${TAG:+/$TAG}" "$steps" "$updates" "$wall" "$err"
done
