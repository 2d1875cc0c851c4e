#!/usr/bin/env bash
# Configures and builds mpsph in build/ (Release; the CUDA backend too when nvcc is found).
#   scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${MPSPH_BUILD_DIR:-build}
JOBS=${MPSPH_JOBS:-$(nproc)}
# nvcc is often installed outside PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$BUILD_DIR/configure.log" 2>&1 \
  || { cat "$BUILD_DIR/configure.log"; exit 1; }
grep -E "mpsph:" "$BUILD_DIR/configure.log" || true
cmake --build "$BUILD_DIR" -j "$JOBS"
