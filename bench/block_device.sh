#!/usr/bin/env bash
# The issue-11 measurements on the GPU machine, in phases that each fit one device call
# (scripts/device-run.sh must have built /tmp/mpsph-build first):
#   bench/block_device.sh OUTDIR gpu1e5   # GPU, N = 1e5: global and block to t = 0.8, block to t = 3
#   bench/block_device.sh OUTDIR gpu1e6   # GPU, N = 1e6: global and block to t = 0.8
#   bench/block_device.sh OUTDIR cpu1e5   # CPU (all cores), N = 1e5: global and block to t = 0.8
# Each phase appends its table lines to OUTDIR/block_table.txt; the runs' energy.csv, timing.txt
# and logs stay in OUTDIR/runs, the t = 0.8 snapshots of N = 1e5 are copied to OUTDIR.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/block_device.sh OUTDIR gpu1e5|gpu1e6|cpu1e5}
BIN=${MPSPH_BIN:-/tmp/mpsph-build/bin/mpsph}
DT_MAX=${DT_MAX:-0.05}
mkdir -p "$OUT/runs"
few=(--set "run.snapshot_fields=[]")
case "$2" in
  gpu1e5)
    bench/block_evrard.sh "$BIN" "$OUT/runs" gpu 100000 0.8 "$DT_MAX" "${few[@]}" | tee -a "$OUT/block_table.txt"
    for s in global block; do
      cp "$OUT/runs/evrard_gpu_100000_$s/snapshot_0001.h5" "$OUT/snap_gpu_1e5_$s.h5" 2>/dev/null ||
        ls "$OUT/runs/evrard_gpu_100000_$s"
    done
    echo "# t_end = 3" | tee -a "$OUT/block_table.txt"
    SCHEMES=block bench/block_evrard.sh "$BIN" "$OUT/runs/t3" gpu 100000 3 "$DT_MAX" "${few[@]}" | tee -a "$OUT/block_table.txt"
    ;;
  gpu1e6)
    bench/block_evrard.sh "$BIN" "$OUT/runs" gpu 1000000 0.8 "$DT_MAX" "${few[@]}" | tee -a "$OUT/block_table.txt"
    ;;
  cpu1e5)
    bench/block_evrard.sh "$BIN" "$OUT/runs" cpu 100000 0.8 "$DT_MAX" "${few[@]}" | tee -a "$OUT/block_table.txt"
    ;;
  *) echo "unknown phase $2"; exit 2 ;;
esac
