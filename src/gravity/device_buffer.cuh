// A growable device array for the gravity CUDA drivers: the solver's scratch persists between calls
// and grows when N does; an allocation failure names the array, the bytes asked and the bytes free.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"

namespace mpsph::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Ensures room for n elements; the first keep_n elements survive a reallocation.
  void reserve(std::size_t n, const char* what, std::size_t keep_n = 0) {
    if (n <= cap_) return;
    void* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky allocation error
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw Error(std::string("GPU gravity: out of device memory allocating ") + what + ": " +
                  std::to_string(n * sizeof(T)) + " bytes asked, " + std::to_string(free_b) +
                  " bytes free");
    }
    if (keep_n > 0 && ptr_) {
      cuda_check(cudaMemcpy(p, ptr_, keep_n * sizeof(T), cudaMemcpyDeviceToDevice), what);
    }
    cudaFree(ptr_);
    ptr_ = static_cast<T*>(p);
    cap_ = n;
  }
  T* get() const { return ptr_; }
  std::size_t capacity() const { return cap_; }
  std::size_t bytes() const { return cap_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t cap_ = 0;
};

}  // namespace mpsph::gpu
