#!/usr/bin/env bash
# Isolated-disk stability runs of issue 15 (setups/isolated_disk.yaml, gravity + adiabatic gas)
# at larger N for 1 Gyr: every particle number times SCALE (18 500 x SCALE particles; 5.4 -> 1e5,
# 54 -> 1e6), softening times SCALE^(-1/3), snapshots at 0, 0.25, 0.5, 0.75 and 1.0227 (1 Gyr).
# After each run the hidden validation case "[disk_snapshots]" measures every snapshot (mass radii,
# rotation, thickness of stars and gas) and checks the last against the first (10%).
#
#   bench/isolated_disk.sh BUILD_DIR OUTDIR DEVICE "SCALE1 SCALE2 ..." [extra --set ...]
#
# BUILD_DIR holds bin/mpsph and tests/mpsph_validation_tests. TIMEOUT=seconds (environment) sends
# SIGINT there: the run stops at the end of its block-step segment, and the snapshots it reached
# are measured (the line says the time reached).
set -uo pipefail
B=${1:?usage: bench/isolated_disk.sh BUILD_DIR OUTDIR DEVICE "SCALE..." [--set ...]}
OUT=${2:?}
DEVICE=${3:?}
SCALES=${4:?}
shift 4
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
for s in $SCALES; do
  nh=$(awk -v s="$s" 'BEGIN { printf "%d", 10000 * s }')
  nb=$(awk -v s="$s" 'BEGIN { printf "%d", 1000 * s }')
  nd=$(awk -v s="$s" 'BEGIN { printf "%d", 5000 * s }')
  ng=$(awk -v s="$s" 'BEGIN { printf "%d", 2500 * s }')
  e=$(awk -v s="$s" 'BEGIN { printf "%.4g", 0.1 * s ^ (-1 / 3) }')
  eh=$(awk -v e="$e" 'BEGIN { printf "%.4g", 4 * e }')
  n=$((nh + nb + nd + ng))
  dir=$OUT/isolated_disk_${DEVICE}_${n}
  start=$(date +%s.%N)
  timeout -s INT "${TIMEOUT:-0}" "$B/bin/mpsph" run "$SRC/setups/isolated_disk.yaml" \
    --device "$DEVICE" --output-dir "$dir" --set run.t_end=1.0227 --set run.snapshot_interval=0 \
    --set "run.snapshot_times=[0.25,0.5,0.75,1.0227]" --set setup.halo.n="$nh" \
    --set setup.bulge.n="$nb" --set setup.disk.n="$nd" --set setup.gas.n="$ng" \
    --set "gravity.softening=[$e,$eh,$e,$e,$e,$e]" "$@" > "$dir.log" 2>&1
  rc=$?
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  echo "== N = $n ($DEVICE, softening $e kpc, halo $eh kpc): exit $rc, wall $wall s"
  grep -E "^steps:|^particle updates:" "$dir/timing.txt" 2>/dev/null
  MPSPH_DISK_DIR=$dir MPSPH_DISK_LAST_ID=$((ng + nh + nd)) \
    "$B/tests/mpsph_validation_tests" "[disk_snapshots]" 2>&1 | grep -E "^\[disk\]|FAILED|with expansion|^  [0-9.]+ < |passed|failed"
done
