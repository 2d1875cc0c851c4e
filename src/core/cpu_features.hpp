// Which instruction sets this CPU offers, for the CPU kernels compiled twice - a baseline copy and
// an AVX-512 copy picked at run time (tree_gravity.cpp, smoothing_length.cpp, density.cpp,
// force.cpp). Both copies give the same bits (those files are compiled with -ffp-contract=off);
// this only picks the faster one.
#pragma once

namespace mpsph {

inline bool cpu_has_avx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
#else
  return false;
#endif
}

// Process-wide: false makes every kernel take its baseline copy, for the tests that compare the
// two copies bit for bit (tests/core/cpu_features_test.cpp). Read at the start of each pass,
// outside its parallel region; true unless a test turns it off.
inline bool& avx512_copies_enabled() {
  static bool enabled = true;
  return enabled;
}

// The kernels' choice: the AVX-512 copy where the CPU has it and it is enabled.
inline bool use_avx512_copies() {
  return cpu_has_avx512() && avx512_copies_enabled();
}

}  // namespace mpsph
