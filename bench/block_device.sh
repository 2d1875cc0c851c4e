#!/usr/bin/env bash
# The issue-11 measurements on the GPU machine, in phases that each fit one device call
# (scripts/device-run.sh must have built /tmp/mpsph-build first):
#   bench/block_device.sh OUTDIR gpu   # GPU: global and block to t = 0.8 at N = 1e5 and 1e6
#   bench/block_device.sh OUTDIR t3    # GPU, N = 1e5: block to t = 3 (energy conservation)
#   bench/block_device.sh OUTDIR cpu   # CPU (all cores), N = 1e5: global and block to t = 0.8
# Each phase appends its table lines to OUTDIR/block_table.txt and the runs' timing.txt to
# OUTDIR/block_timing.txt; the runs stay in OUTDIR/runs, and the t = 0.8 snapshots of the GPU runs
# at N = 1e5 are copied to OUTDIR/snap_gpu_1e5_{global,block}.h5 (tools/plot_evrard.py).
# DT_MAX (default 0.05) is the block scheme's segment; extra arguments go to every run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/block_device.sh OUTDIR gpu|t3|cpu [--set ...]}
PHASE=${2:?}
shift 2
BIN=${MPSPH_BIN:-/tmp/mpsph-build/bin/mpsph}
DT_MAX=${DT_MAX:-0.05}
mkdir -p "$OUT/runs"
few=(--set "run.snapshot_fields=[]" "$@")
timings() {
  for d in "$@"; do
    [ -f "$d/timing.txt" ] && { echo "== $(basename "$d")"; cat "$d/timing.txt"; }
  done >> "$OUT/block_timing.txt"
}
case "$PHASE" in
  gpu)
    for n in 100000 1000000; do
      bench/block_evrard.sh "$BIN" "$OUT/runs" gpu $n 0.8 "$DT_MAX" "${few[@]}" |
        tee -a "$OUT/block_table.txt"
      timings "$OUT"/runs/evrard_gpu_${n}_global "$OUT"/runs/evrard_gpu_${n}_block
    done
    for s in global block; do
      cp "$OUT/runs/evrard_gpu_100000_$s/snapshot_0001.h5" "$OUT/snap_gpu_1e5_$s.h5" ||
        ls "$OUT/runs/evrard_gpu_100000_$s"
    done
    ;;
  t3)
    echo "# t_end = 3" | tee -a "$OUT/block_table.txt"
    SCHEMES=block bench/block_evrard.sh "$BIN" "$OUT/runs/t3" gpu 100000 3 "$DT_MAX" "${few[@]}" |
      tee -a "$OUT/block_table.txt"
    timings "$OUT"/runs/t3/evrard_gpu_100000_block
    ;;
  cpu)
    bench/block_evrard.sh "$BIN" "$OUT/runs" cpu 100000 0.8 "$DT_MAX" "${few[@]}" |
      tee -a "$OUT/block_table.txt"
    timings "$OUT"/runs/evrard_cpu_100000_global "$OUT"/runs/evrard_cpu_100000_block
    ;;
  *) echo "unknown phase $PHASE"; exit 2 ;;
esac
