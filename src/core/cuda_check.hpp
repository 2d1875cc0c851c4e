// Error checks for CUDA runtime calls and kernel launches (CUDA translation units only): every
// failure becomes an mpsph::Error naming the call or kernel and CUDA's own message.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

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

// Blocking copies of the first n elements of a host vector to a device array and back (the
// host-staged passes of the MPI ranks, sph/sph_passes.hpp and gravity/tree_with_sources.hpp).
template <class T>
void copy_to_device(T* device, const std::vector<T>& host, std::size_t n) {
  if (n > 0)
    cuda_check(cudaMemcpy(device, host.data(), n * sizeof(T), cudaMemcpyHostToDevice),
               "a host-to-device copy");
}
template <class T>
void copy_to_host(std::vector<T>& host, const T* device, std::size_t n) {
  if (n > 0)
    cuda_check(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost),
               "a device-to-host copy");
}

// Blocks of `threads` covering n items.
inline unsigned cuda_blocks(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace mpsph
