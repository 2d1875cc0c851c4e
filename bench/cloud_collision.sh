#!/usr/bin/env bash
# The cloud-collision runs of issue 14 (setups/cloud_collision.yaml to its t_end = 3 t_ff), one
# line per N per cloud: wall time of the whole `mpsph run` (set-up included), substeps, particle
# updates, the time of the first sink and the sink count and mass at 1, 2 and 3 t_ff (from
# sinks.csv), for the table in docs/PERFORMANCE.md. The gravity softening and sinks.h_acc follow
# the YAML's rule (0.36 pc at 4096 per cloud, scaling as 1/N).
#
#   bench/cloud_collision.sh MPSPH_BINARY OUTDIR DEVICE "N1 N2 ..." [extra --set ...]
#
# TIMEOUT=seconds (environment) stops each run there (`timeout`); the line then says how far it
# got.
set -uo pipefail
BIN=${1:?usage: bench/cloud_collision.sh MPSPH_BINARY OUTDIR DEVICE "N1 N2 ..." [--set ...]}
OUT=${2:?}
DEVICE=${3:?}
NS=${4:?}
shift 4
SRC=$(cd "$(dirname "$0")/.." && pwd)
T_FF=1.968  # code time (setups/cloud_collision.yaml)
mkdir -p "$OUT"
printf "%-6s %8s %8s %9s %9s %12s %9s %-18s %-18s %-18s\n" device N_cloud eps_pc wall_s substeps \
  updates t_end first_sink "at_1tff(n,Msun)" "at_2tff" "at_3tff"
for n in $NS; do
  eps=$(awk -v n="$n" 'BEGIN { printf "%.3g", 0.36 * 4096 / n }')
  dir=$OUT/cloud_collision_${DEVICE}_${n}
  start=$(date +%s.%N)
  timeout "${TIMEOUT:-0}" "$BIN" run "$SRC/setups/cloud_collision.yaml" --device "$DEVICE" \
    --output-dir "$dir" --set setup.n_per_cloud="$n" --set "gravity.softening=[$eps]" \
    --set sinks.h_acc="$eps" "$@" > "$dir.log" 2>&1
  rc=$?
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  [ $rc -eq 0 ] || [ $rc -eq 124 ] || { echo "run failed (exit $rc): $dir.log"; tail -5 "$dir.log"; continue; }
  steps=$(awk '/^steps:/ {print $2}' "$dir/timing.txt" 2>/dev/null)
  updates=$(awk '/^particle updates:/ {print $3}' "$dir/timing.txt" 2>/dev/null)
  t_last=$(awk -F, '!/^#/ && !/^step/ { t = $2 } END { printf "%.3f", t }' "$dir/energy.csv")
  sinks() {  # count and summed mass of the sinks at the row nearest to t = $1 t_ff
    awk -F, -v t="$1" -v tff=$T_FF '!/^#/ && !/^time/ {
        d = $1 - t * tff; if (d < 0) d = -d; if (d < 0.02) { c++; m += $3 } }
      END { if (c) printf "%d,%.0f", c, m; else printf "-" }' "$dir/sinks.csv"
  }
  first=$(awk -F, -v tff=$T_FF '!/^#/ && !/^time/ { printf "%.2f", $1 / tff; exit }' "$dir/sinks.csv")
  [ $rc -eq 124 ] && wall=">$wall"
  printf "%-6s %8s %8s %9s %9s %12s %9s %-18s %-18s %-18s\n" "$DEVICE" "$n" "$eps" "$wall" \
    "${steps:--}" "${updates:--}" "$t_last" "${first:--}" "$(sinks 1)" "$(sinks 2)" "$(sinks 3)"
done
