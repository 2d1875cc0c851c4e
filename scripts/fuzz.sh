#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang with ASan + UBSan: the `asan` preset) and runs each
# for SECONDS, niced, one process each, starting from the committed seed corpus fuzz/corpus/<harness>/.
# New inputs go to build-asan/fuzz/corpus/<harness>/, crashes and hangs to
# build-asan/fuzz/artifacts/<harness>/, logs to build-asan/fuzz/<harness>.log. See
# docs/reliability.md.
#
#   scripts/fuzz.sh [SECONDS per harness, default 600] [harness ...]
#       harnesses: config_fuzz ic_reader_fuzz checkpoint_fuzz (default: all three)
#
# Exit status 1 when a harness found a crash, a sanitizer report, a leak or a hang. Run one
# invocation at a time (several at once would build in the same directory together).
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-600}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(config_fuzz ic_reader_fuzz checkpoint_fuzz)
BUILD=build-asan

command -v clang++ > /dev/null || { echo "fuzz.sh needs clang (apt-get install clang libclang-rt-14-dev libomp-dev)"; exit 1; }
[ -f "$BUILD/build.ninja" ] || cmake --preset asan > /dev/null || exit 1
nice -n 10 cmake --build "$BUILD" -j "${JOBS:-2}" --target "${HARNESSES[@]}" || exit 1

# Leaks inside HDF5 itself on corrupt files are suppressed (fuzz/lsan.supp says why); the
# harnesses check that mpsph closes every HDF5 object it opened.
# allocator_may_return_null: an absurd malloc inside HDF5 (a corrupt size field) fails as in
# production, where HDF5 reports it; an absurd allocation of mpsph's own throws std::bad_alloc,
# which the harnesses do not catch (a finding).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for h in "${HARNESSES[@]}"; do
  work="$BUILD/fuzz/corpus/$h"
  art="$BUILD/fuzz/artifacts/$h/"
  mkdir -p "$work" "$art"
  dict=()
  [ -f "fuzz/${h%_fuzz}.dict" ] && dict=(-dict="fuzz/${h%_fuzz}.dict")
  echo "== $h: ${SECONDS_EACH} s"
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb: one over 2 GB is a finding.
  nice -n 10 "$BUILD/fuzz/$h" -max_total_time="$SECONDS_EACH" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art" "${dict[@]}" \
    "$work" "fuzz/corpus/$h" > "$BUILD/fuzz/$h.log" 2>&1
  rc=$?
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: [0-9]+" "$BUILD/fuzz/$h.log" | tail -3
  found=$(find "$art" -type f | wc -l)
  echo "   exit $rc, corpus $(find "$work" -type f | wc -l) inputs, findings in $art: $found"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    grep -m3 -E "ERROR: |runtime error|SUMMARY" "$BUILD/fuzz/$h.log"
  fi
done
exit $status
