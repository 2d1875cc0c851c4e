#!/usr/bin/env bash
# On the GPU machine (no package registry): unpack the carried Debian packages, configure with
# CUDA, build with all cores, run the GPU tests and the benchmarks, and copy logs and result
# tables into OUTDIR. See docs/gpu.md.
#
#   scripts/device-run.sh OUTDIR [tests|bench|all|none] [extra ctest args]   (none: build only)
#
# Needs .deps/debs from scripts/device-deps.sh (run on a Debian 12 machine with apt access).
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:?usage: scripts/device-run.sh OUTDIR [tests|bench|all]}
WHAT=${2:-all}
mkdir -p "$OUTDIR"
BUILD=/tmp/mpsph-build
PREFIX=/tmp/mpsph-deps
LOG=$OUTDIR/device.log
exec > >(tee -a "$LOG") 2>&1

echo "== $(date -u +%FT%TZ) $(hostname)"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv || true
nproc
scripts/device-unpack.sh .deps/debs "$PREFIX" > "$OUTDIR/unpack.log" 2>&1 || { cat "$OUTDIR/unpack.log"; exit 1; }
# shellcheck disable=SC1091
. "$PREFIX/env.sh"
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release $SPH_DEPS_CMAKE_ARGS \
  > "$OUTDIR/configure.log" 2>&1 || { cat "$OUTDIR/configure.log"; exit 1; }
grep "mpsph:" "$OUTDIR/configure.log"
# MPSPH_BUILD_TARGETS (space-separated) builds only those targets, to save device time.
# shellcheck disable=SC2086
cmake --build "$BUILD" -j "$(nproc)" ${MPSPH_BUILD_TARGETS:+--target $MPSPH_BUILD_TARGETS} > "$OUTDIR/build.log" 2>&1 || { tail -60 "$OUTDIR/build.log"; exit 1; }
echo "build ok"

status=0
if [ "$WHAT" = tests ] || [ "$WHAT" = all ]; then
  shift 2 || true
  # -V: the tests' measured numbers ([gpu ...] lines) land in the log; the tests run once.
  ctest --test-dir "$BUILD" -V -L gpu "$@" > "$OUTDIR/ctest_gpu.log" 2>&1
  [ $? -eq 0 ] || status=1
  grep -E "^[0-9]+: \[gpu|tests passed|tests failed|FAILED|SKIPPED" "$OUTDIR/ctest_gpu.log"
fi
if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
  for b in "$BUILD"/bin/bench_*gpu*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" 2>&1 | tee "$OUTDIR/$(basename "$b").txt"
  done
fi
exit $status
