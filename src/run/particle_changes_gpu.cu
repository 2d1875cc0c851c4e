#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include "core/cuda_check.hpp"
#include "run/particle_changes_gpu.hpp"
#include "run/spawn_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;

__global__ void flag_kernel(const double* spawn_mass, std::size_t n, uint32_t* flags) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) flags[i] = spawn_mass[i] > 0.0 ? 1u : 0u;
}

// Parent i with a request writes its child at n_old + (requests before i).
__global__ void spawn_kernel(ParticleView p, std::size_t n_old, const uint32_t* flags,
                             const uint32_t* slots, uint64_t first_id) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n_old || !flags[i]) return;
  const std::size_t c = n_old + slots[i];
  copy_particle(p, i, c);
  finish_spawn(p, i, c, first_id + slots[i]);
}

}  // namespace

DeviceSpawner::~DeviceSpawner() {
  cudaFree(flags_);
  cudaFree(slots_);
  cudaFree(temp_);
}

void DeviceSpawner::reserve(std::size_t n) {
  if (n <= capacity_) return;
  cudaFree(flags_);
  cudaFree(slots_);
  cudaFree(temp_);
  flags_ = slots_ = nullptr;
  temp_ = nullptr;
  cuda_check(cudaMalloc(&flags_, n * sizeof(uint32_t)), "allocation of the spawn flags");
  cuda_check(cudaMalloc(&slots_, n * sizeof(uint32_t)), "allocation of the spawn slots");
  temp_bytes_ = 0;
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes_, flags_, slots_, int(n)),
             "spawn scan size query");
  cuda_check(cudaMalloc(&temp_, temp_bytes_), "allocation of the spawn scan");
  capacity_ = n;
}

void DeviceSpawner::spawn(DeviceParticles& d, std::size_t children, uint64_t first_id) {
  const std::size_t n = d.size();
  if (children == 0 || n == 0) return;
  reserve(n);
  flag_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d.view().spawn_mass, n, flags_);
  cuda_check_launch("spawn flag_kernel");
  std::size_t bytes = temp_bytes_;
  cuda_check(cub::DeviceScan::ExclusiveSum(temp_, bytes, flags_, slots_, int(n)), "spawn scan");
  d.resize(n + children);
  spawn_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d.view(), n, flags_, slots_, first_id);
  cuda_check_launch("spawn_kernel");
}

}  // namespace mpsph
