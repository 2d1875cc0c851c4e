#!/usr/bin/env bash
# On the GPU machine, after scripts/device-run.sh (which leaves the build in /tmp/mpsph-build):
# rebuilds only direct_gravity_gpu.cu for each kernel shape below (MPSPH_DIRECT_SHAPE, see
# CMakeLists.txt) and prints bench_gravity_gpu's direct-kernel rows at N = 2^20. The shape used by
# default is the one the source sets (docs/PERFORMANCE.md records the comparison).
#   bench/direct_shapes.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-/tmp/mpsph-build}
shapes=(
  ""
  "MPSPH_DIRECT_PER_THREAD=8;MPSPH_DIRECT_MIN_BLOCKS=2"
  "MPSPH_DIRECT_PER_THREAD=8;MPSPH_DIRECT_MIN_BLOCKS=3"
  "MPSPH_DIRECT_PER_THREAD=6;MPSPH_DIRECT_MIN_BLOCKS=3"
  "MPSPH_DIRECT_THREADS=256;MPSPH_DIRECT_MIN_BLOCKS=2"
  "MPSPH_DIRECT_THREADS=256;MPSPH_DIRECT_PER_THREAD=8;MPSPH_DIRECT_MIN_BLOCKS=1"
)
for shape in "${shapes[@]}"; do
  cmake -S . -B "$BUILD" -DMPSPH_DIRECT_SHAPE="$shape" > /dev/null || exit 1
  cmake --build "$BUILD" --target bench_gravity_gpu > "$BUILD/direct_shape.log" 2>&1 \
    || { tail -30 "$BUILD/direct_shape.log"; exit 1; }
  echo "== shape: ${shape:-default}"
  "$BUILD/bin/bench_gravity_gpu" direct | grep -E " 1048576 | 262144 "
done
cmake -S . -B "$BUILD" -DMPSPH_DIRECT_SHAPE="" > /dev/null
