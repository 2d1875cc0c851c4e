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

}  // namespace mpsph
