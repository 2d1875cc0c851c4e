#include <cuda_runtime.h>

#include <string>

#include "core/device_scratch.hpp"
#include "core/error.hpp"

namespace mpsph {

DeviceScratch::~DeviceScratch() {
  cudaFree(ptr_);
}

void* DeviceScratch::acquire(std::size_t bytes, const char* what) {
  ++generation_;
  if (bytes <= bytes_ && ptr_) return ptr_;
  cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  const std::size_t want = align(bytes == 0 ? 1 : bytes);
  if (cudaMalloc(&ptr_, want) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky allocation error
    ptr_ = nullptr;
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw Error(std::string("out of GPU memory allocating the shared scratch for ") + what + ": " +
                std::to_string(want) + " bytes asked, " + std::to_string(free_b) + " bytes free");
  }
  bytes_ = want;
  return ptr_;
}

}  // namespace mpsph
