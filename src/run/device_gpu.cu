// GPU probe for the CUDA build.
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"
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

int select_gpu(int local_rank) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess || n == 0)
    throw Error(std::string("no GPU for this rank: ") +
                (err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device found"));
  const int d = local_rank % n;
  if (cudaSetDevice(d) != cudaSuccess) throw Error("cannot use GPU " + std::to_string(d));
  return d;
}

}  // namespace mpsph
