// GPU probe for the CUDA build.
#include <cuda_runtime.h>

#include "run/device.hpp"

namespace mpsph {

GpuProbe probe_gpu() {
  GpuProbe p;
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    p.reason = std::string("CUDA reports: ") + cudaGetErrorString(err);
    return p;
  }
  if (n == 0) {
    p.reason = "no CUDA device found";
    return p;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  p.available = true;
  p.name = prop.name;
  return p;
}

}  // namespace mpsph
