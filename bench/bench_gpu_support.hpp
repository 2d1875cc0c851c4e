// Helpers shared by the GPU benchmarks (CUDA builds only).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace mpsph::bench {

// Exits with the CUDA error's text when `e` is one: a benchmark has nothing to recover.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The median of v (the upper middle one of an even count; 0 for none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace mpsph::bench
