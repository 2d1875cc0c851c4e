// Error checks for CUDA runtime calls and kernel launches (CUDA translation units only): every
// failure becomes an mpsph::Error naming the call or kernel and CUDA's own message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace mpsph {

inline void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(err));
}

// After a launch: configuration errors at once; faults inside the kernel surface at the next
// synchronising call, which is checked too.
inline void cuda_check_launch(const char* kernel) {
  cuda_check(cudaGetLastError(), kernel);
}

// Blocks of `threads` covering n items.
inline unsigned cuda_blocks(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace mpsph
