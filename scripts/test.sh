#!/usr/bin/env bash
# The README's second command (and CI's): installs what is missing, builds, runs the test suite:
# unit tests, validation runs, Python file-format checks; GPU tests are reported as skipped on a
# machine without a GPU. Extra arguments go to that ctest (e.g. -L unit).
# Then, unless MPSPH_TEST_SANITIZERS=0, it builds the unit tests with clang, AddressSanitizer and
# UBSan (preset asan-tests, build-asan-tests/) and runs them: any failed test, sanitizer report or
# leak fails the script (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZERS=${MPSPH_TEST_SANITIZERS:-1}
case "$SANITIZERS" in
  0 | 1) ;;
  *) echo "test.sh: MPSPH_TEST_SANITIZERS must be 0 or 1, not '$SANITIZERS'" >&2; exit 2 ;;
esac
JOBS=${MPSPH_JOBS:-$(nproc)}
if [ "$SANITIZERS" -eq 1 ]; then
  scripts/install-deps.sh --sanitizers \
    || { echo "test.sh: (MPSPH_TEST_SANITIZERS=0 skips the sanitizer pass and needs no clang)" >&2; exit 1; }
else
  scripts/install-deps.sh
fi
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$JOBS" -LE heavy "$@"
[ "$SANITIZERS" -eq 1 ] || exit 0

echo "mpsph: unit tests under AddressSanitizer + UBSan (build-asan-tests/; MPSPH_TEST_SANITIZERS=0 skips)"
mkdir -p build-asan-tests
cmake --preset asan-tests >build-asan-tests/configure.log 2>&1 \
  || { cat build-asan-tests/configure.log; exit 1; }
cmake --build --preset asan-tests -j "$JOBS"
# Every report fails its test: ASan stops at its first error, UBSan too (-fno-sanitize-recover in
# the preset), LeakSanitizer at exit. No leak is suppressed (the unit tests meet none of HDF5's own,
# for which scripts/fuzz.sh needs fuzz/lsan.supp).
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
unset LSAN_OPTIONS
ctest --preset asan-tests -j "$JOBS"
