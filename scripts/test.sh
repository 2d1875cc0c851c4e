#!/usr/bin/env bash
# The README's second command (and CI's): installs what is missing, builds, runs the test suite:
# unit tests, validation runs, Python file-format checks; GPU tests are reported as skipped on a
# machine without a GPU. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE heavy "$@"
