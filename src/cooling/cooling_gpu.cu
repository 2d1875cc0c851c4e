// The cooling stage on the device: one thread per gas particle runs cool_stored_particle()
// (cooling_kern.hpp), the function of the OpenMP loop in cooling.cpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cooling/cooling_gpu.hpp"
#include "core/cuda_check.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 2048;  // fixed for a given n: the sum's order is reproducible

// Sum of one double per thread over the block, fixed order; thread 0 gets the total.
__device__ double block_sum(double mine) {
  __shared__ double sh[kThreads];
  sh[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) sh[threadIdx.x] += sh[threadIdx.x + stride];
    __syncthreads();
  }
  return sh[0];
}

// Over the active gas; each particle over its own step (the global scheme: one dt for all).
__global__ void cooling_kernel(CoolingKernelParams p, ParticleView s, ActiveSet a, std::size_t n,
                               double tick_len, double* partial) {
  double radiated = 0.0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = a[k];
    int substeps = 0;
    radiated += cool_stored_particle(p, s, i, particle_step(s, i, tick_len), &substeps);
  }
  const double total = block_sum(radiated);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void cooling_total_kernel(const double* partial, unsigned n_partial, double* out) {
  double acc = 0.0;
  for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) acc += partial[b];
  const double total = block_sum(acc);
  if (threadIdx.x == 0) *out = total;
}

}  // namespace

GpuCooling::GpuCooling(const CoolingModel& model) : params_(model.kernel_params()) {
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(double)), "allocation of the cooling sums");
  cuda_check(cudaMalloc(&radiated_, sizeof(double)), "allocation of the cooling sums");
  cuda_check(cudaMemset(radiated_, 0, sizeof(double)), "cooling sums");
  const CoolingTable* t = model.table();
  if (!t) return;
  // One block: the three tables [n_feh * n_logT] each, then the n_feh metallicities.
  const std::size_t nt = t->log_lambda_n.size();
  std::vector<double> host;
  host.reserve(3 * nt + t->feh.size());
  host.insert(host.end(), t->log_lambda_n.begin(), t->log_lambda_n.end());
  host.insert(host.end(), t->log_ne.begin(), t->log_ne.end());
  host.insert(host.end(), t->log_nt.begin(), t->log_nt.end());
  host.insert(host.end(), t->feh.begin(), t->feh.end());
  cuda_check(cudaMalloc(&table_, host.size() * sizeof(double)), "allocation of the cooling table");
  cuda_check(cudaMemcpy(table_, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice),
             "copy of the cooling table to the device");
  const double* d = static_cast<const double*>(table_);
  params_.table.log_lambda_n = d;
  params_.table.log_ne = d + nt;
  params_.table.log_nt = d + 2 * nt;
  params_.table.feh = d + 3 * nt;
}

GpuCooling::~GpuCooling() {
  cudaFree(table_);
  cudaFree(partial_);
  cudaFree(radiated_);
}

void GpuCooling::apply(const ParticleView& d, const ActiveSet& a, double tick_len) {
  const std::size_t n = a.gas_count(d.n_gas);
  const unsigned blocks = std::max(1u, std::min(kMaxBlocks, cuda_blocks(n, kThreads)));
  double* partial = static_cast<double*>(partial_);
  cooling_kernel<<<blocks, kThreads>>>(params_, d, a, n, tick_len, partial);
  cuda_check_launch("cooling_kernel");
  cooling_total_kernel<<<1, kThreads>>>(partial, blocks, static_cast<double*>(radiated_));
  cuda_check_launch("cooling_total_kernel");
}

}  // namespace mpsph
