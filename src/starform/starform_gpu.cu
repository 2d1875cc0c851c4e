// Star formation on the device: the same per-particle functions as the OpenMP drivers
// (starform.cpp). Compiled with -fmad=false (CMakeLists.txt): the free-fall times and
// probabilities then round as on the CPU (up to exp, within an ulp), so both backends form the
// same stars.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/block_sum_gpu.cuh"
#include "core/cuda_check.hpp"
#include "starform/starform_gpu.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: the sums' order is reproducible

// partial[b] of every block b -> *out.
__global__ void total_kernel(const double* partial, unsigned n_partial, double* out) {
  double acc = 0.0;
  for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) acc += partial[b];
  const double total = block_sum<kThreads>(acc);
  if (threadIdx.x == 0) *out = total;
}

__global__ void finish_kernel(ParticleView s, std::size_t begin, std::size_t end,
                              double decided_at) {
  const std::size_t i = begin + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < end) finish_spawned_star(s, i, decided_at);
}

__global__ void cloud_kernel(CloudStarformParams p, ParticleView s, ActiveSet a, std::size_t n,
                             double tick_len, long step, double time) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const std::size_t i = a[k];
  cloud_form_star(p, s, i, particle_step(s, i, tick_len), step, time);
}

__global__ void katz_kernel(KatzParams p, ParticleView s, ActiveSet a, std::size_t n,
                            double tick_len, long step, double time, double* partial) {
  double thermal = 0.0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = a[k];
    thermal += katz_form_star(p, s, i, particle_step(s, i, tick_len), step, time).thermal;
  }
  const double total = block_sum<kThreads>(thermal);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void formed_mass_kernel(ParticleView s, double* partial) {
  double m = 0.0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < s.n;
       i += std::size_t(gridDim.x) * blockDim.x)
    m += formed_stellar_mass(s, i);
  const double total = block_sum<kThreads>(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

unsigned reduction_blocks(std::size_t n) {
  return std::max(1u, std::min(kMaxBlocks, cuda_blocks(n, kThreads)));
}

}  // namespace

GpuStarform::GpuStarform(const StarformModel& model) : model_(model) {
  const char* what = "star formation buffers";
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(double)), what);
  cuda_check(cudaMalloc(&thermal_, sizeof(double)), what);
  cuda_check(cudaMalloc(&mass_, sizeof(double)), what);
  cuda_check(cudaMemset(thermal_, 0, sizeof(double)), what);
}

GpuStarform::~GpuStarform() {
  cudaFree(partial_);
  cudaFree(thermal_);
  cudaFree(mass_);
}

void GpuStarform::finish_spawned(const ParticleView& d, std::size_t begin, std::size_t end,
                                 double decided_at) {
  if (end <= begin) return;
  finish_kernel<<<cuda_blocks(end - begin, kThreads), kThreads>>>(d, begin, end, decided_at);
  cuda_check_launch("starform finish_kernel");
}

void GpuStarform::form(const ParticleView& d, const ActiveSet& a, double tick_len, long step,
                       double time) {
  if (model_.kind == StarformKind::Katz) {
    const std::size_t n = a.gas_count(d.n_gas);
    const unsigned rb = reduction_blocks(n);
    katz_kernel<<<rb, kThreads>>>(model_.katz, d, a, n, tick_len, step, time, partial_);
    cuda_check_launch("starform katz_kernel");
    total_kernel<<<1, kThreads>>>(partial_, rb, thermal_);
    cuda_check_launch("starform total_kernel");
    return;
  }
  const std::size_t n = a.count(d.n);
  if (n == 0) return;
  cloud_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(model_.clouds, d, a, n, tick_len, step,
                                                       time);
  cuda_check_launch("starform cloud_kernel");
}

double GpuStarform::stellar_mass(const ParticleView& d) {
  const unsigned rb = reduction_blocks(d.n);
  formed_mass_kernel<<<rb, kThreads>>>(d, partial_);
  cuda_check_launch("starform formed_mass_kernel");
  total_kernel<<<1, kThreads>>>(partial_, rb, mass_);
  cuda_check_launch("starform total_kernel");
  double m = 0.0;
  cuda_check(cudaMemcpy(&m, mass_, sizeof m, cudaMemcpyDeviceToHost), "stellar mass formed");
  return m;
}

}  // namespace mpsph
