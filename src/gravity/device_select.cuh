// Stream compaction on the device with its buffers kept between calls (cub::DeviceSelect::Flagged):
// the entries of a device array whose flag is set, in their order, and their count on the host.
// For the CUDA drivers that list particles on the device (the device-resident MPI ranks' halos
// and leaving particles).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_select.cuh>
#include <string>

#include "core/cuda_check.hpp"
#include "gravity/device_buffer.cuh"

namespace mpsph::gpu {

class FlaggedSelect {
 public:
  // out[0, m) = in[k] for the k < n with flags[k] != 0, in order; returns m (synchronises).
  // `what` names the selection in errors.
  template <class T>
  std::size_t operator()(const T* in, const uint8_t* flags, std::size_t n, T* out,
                         const char* what) {
    if (n == 0) return 0;
    count_.reserve(1, what);
    std::size_t bytes = 0;
    cuda_check(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count_.get(), int64_t(n)),
               (std::string(what) + " (size)").c_str());
    temp_.reserve(std::max<std::size_t>(bytes, 1), what);
    cuda_check(
        cub::DeviceSelect::Flagged(temp_.get(), bytes, in, flags, out, count_.get(), int64_t(n)),
        what);
    std::size_t m = 0;
    cuda_check(cudaMemcpy(&m, count_.get(), sizeof(m), cudaMemcpyDeviceToHost),
               (std::string(what) + " (count)").c_str());
    return m;
  }

 private:
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<std::size_t> count_;
};

}  // namespace mpsph::gpu
