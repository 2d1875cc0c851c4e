// The cloud <-> gas coupling on the device: the same functions as exchange_cloud_gas() of
// cloud_gas_exchange.cpp, in the same order per particle. Compiled with -fmad=false
// (CMakeLists.txt), so the distances, weights and masses round as on the CPU and both backends
// turn the same clouds back into gas.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/block_sum_gpu.cuh"
#include "core/cuda_check.hpp"
#include "feedback/gas_neighbours_gpu.cuh"
#include "multiphase/cloud_gas_exchange_gpu.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;

// One thread per cloud slot s (store index begin + s): its shares and its condensation demand.
template <int K>
__global__ void demand_kernel(ParticleView p, ActiveSet a, std::size_t begin, std::size_t n,
                              Box box, CloudGasParams cp, int nb, const FeedbackGrid* grid,
                              double tick_len, CloudGasSource* src, double* demand, int* n_recv,
                              double* weight, uint32_t* recv, uint32_t* slot, double* rho,
                              double* h) {
  const std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (s >= n) return;
  clear_gas_shares(s, nb, recv, slot);
  src[s] = CloudGasSource{};
  demand[s] = 0.0;
  n_recv[s] = 0;
  const std::size_t i = begin + s;
  if (p.type[i] != kCloud || !a.contains(p.ti_end, i)) return;
  const int m = gather_gas_shares<K>(p, box, *grid, p.pos[i], s, nb, recv, weight, rho, h);
  n_recv[s] = m;
  demand[s] = cloud_condensation_demand(cp, p, i, recv + s * nb, weight + s * nb, m, rho[s], h[s],
                                        particle_step(p, i, tick_len));
}

// One thread per receiver run of the sorted pairs: the fraction of the demands on it it grants,
// and the share of its inertia each cloud's drag may use.
__global__ void grant_kernel(CloudGasParams cp, ParticleView p, std::size_t n_pairs,
                             const uint32_t* key, const uint32_t* val, int nb, const double* demand,
                             const double* weight, double* grant, double* share) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (!receiver_run_starts(q, n_pairs, key)) return;
  const std::size_t end = receiver_run_end(q, n_pairs, key);
  double d = 0.0;
  for (std::size_t k = q; k < end; ++k) d += weight[val[k]] * demand[val[k] / uint32_t(nb)];
  const double g = receiver_condensation_grant(cp, p.mass[key[q]], d);
  const double sj = receiver_drag_share(end - q);
  for (std::size_t k = q; k < end; ++k) grant[val[k]] = g, share[val[k]] = sj;
}

// One thread per cloud slot: its own update, within the grants and drag shares of its receivers.
__global__ void cloud_kernel(ParticleView p, ActiveSet a, std::size_t begin, std::size_t n,
                             CloudGasParams cp, int nb, double tick_len, CloudGasSource* src,
                             const double* demand, const int* n_recv, const double* grant,
                             const double* share, const double* weight, const uint32_t* recv,
                             const double* rho, const double* h) {
  const std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (s >= n) return;
  const std::size_t i = begin + s;
  if (p.type[i] != kCloud || !a.contains(p.ti_end, i)) return;
  const int m = n_recv[s];
  src[s] = cloud_gas_step(cp, p, i, recv + s * nb, weight + s * nb, share + s * nb, m, rho[s], h[s],
                          particle_step(p, i, tick_len),
                          cloud_condensation_cap(demand[s], grant + s * nb, m));
}

// One thread per receiver run of the sorted pairs: losses, then gains, in cloud order; dk gets
// the kinetic energy of each share's impulse.
__global__ void receive_kernel(CloudGasParams cp, ParticleView p, std::size_t n_pairs,
                               const uint32_t* key, const uint32_t* val, int nb,
                               const CloudGasSource* src, const double* weight, double* dk) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (!receiver_run_starts(q, n_pairs, key)) return;
  const std::size_t j = key[q], end = receiver_run_end(q, n_pairs, key);
  for (std::size_t k = q; k < end; ++k)
    receive_condensation(p, j, src[val[k] / uint32_t(nb)], weight[val[k]]);
  for (std::size_t k = q; k < end; ++k)
    dk[val[k]] = receive_evaporation_drag(cp, p, j, src[val[k] / uint32_t(nb)], weight[val[k]]);
}

// One thread per cloud slot: what its drag dissipated.
__global__ void dissipation_kernel(const CloudGasSource* src, const double* dk, const int* n_recv,
                                   int nb, std::size_t n, double* diss) {
  const std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (s < n) diss[s] = drag_dissipation(src[s], dk + s * nb, n_recv[s]);
}

// One thread per receiver run: its shares of the dissipations as heat, in cloud order, then its
// time step.
__global__ void drag_heat_kernel(CloudGasParams cp, ParticleView p, std::size_t n_pairs,
                                 const uint32_t* key, const uint32_t* val, int nb,
                                 const CloudGasSource* src, const double* diss,
                                 const double* weight, double* floor_added, FeedbackTiming ft,
                                 int64_t now, double length, bool all) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (!receiver_run_starts(q, n_pairs, key)) return;
  const std::size_t j = key[q], end = receiver_run_end(q, n_pairs, key);
  CloudPace pace;
  for (std::size_t k = q; k < end; ++k) {
    floor_added[val[k]] = receive_drag_heat(cp, p, j, diss[val[k] / uint32_t(nb)], weight[val[k]]);
    note_cloud_pace(src[val[k] / uint32_t(nb)], &pace);
  }
  follow_cloud_steps(p, j, pace, ft.gamma, ft.courant, now, length, all);
}

__global__ void clear_shares_kernel(double* a, double* b, std::size_t n_pairs) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (q < n_pairs) a[q] = b[q] = 0.0;
}

// sum + v[i] + v[i + stride] + ... for i = threadIdx.x, left to right, with kBatch loads in
// flight at a time: the additions of the plain strided loop in its order, at kBatch times its
// memory parallelism (one block streams every share of every cloud at each call).
template <int kBatch, class Load>
__device__ double strided_sum(double sum, std::size_t n, Load load) {
  const std::size_t stride = blockDim.x;
  std::size_t i = threadIdx.x;
  for (; i + (kBatch - 1) * stride < n; i += kBatch * stride) {
    double v[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) v[b] = load(i + b * stride);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) sum += v[b];
  }
  for (; i < n; i += stride) sum += load(i);
  return sum;
}

// The accounts, summed in a fixed order (one block).
__global__ void account_kernel(const CloudGasSource* src, const double* diss, std::size_t n,
                               const double* floor_added, std::size_t n_pairs, double* out) {
  const double e = strided_sum<16>(0.0, n, [&](std::size_t s) { return src[s].account; });
  const double d = strided_sum<16>(0.0, n, [&](std::size_t s) { return diss[s]; });
  const double f = strided_sum<32>(0.0, n_pairs, [&](std::size_t q) { return floor_added[q]; });
  const double te = block_sum<kThreads>(e);
  const double td = block_sum<kThreads>(d);
  const double tf = block_sum<kThreads>(f);
  if (threadIdx.x == 0) out[0] = te, out[1] = td, out[2] = -(td + tf);
}

}  // namespace

GpuCloudGasExchange::GpuCloudGasExchange(const CloudGasParams& cp, const FeedbackTiming& ft, int nb)
    : cp_(cp), ft_(ft), nb_(nb) {
  cuda_check(cudaMalloc(&accounts_, 3 * sizeof(double)), "allocation of the exchange accounts");
  cuda_check(cudaMemset(accounts_, 0, 3 * sizeof(double)), "exchange accounts");
}

GpuCloudGasExchange::~GpuCloudGasExchange() {
  cudaFree(src_);
  cudaFree(demand_);
  cudaFree(n_recv_);
  cudaFree(grant_);
  cudaFree(work_);
  cudaFree(accounts_);
}

void GpuCloudGasExchange::apply(const ParticleView& d, const ActiveSet& a, const Box& box,
                                std::size_t begin, std::size_t end, double tick_len) {
  const std::size_t n = end - begin;
  if (n == 0 || d.n_gas == 0) {
    cuda_check(cudaMemsetAsync(accounts_, 0, 3 * sizeof(double)), "exchange accounts");
    return;
  }
  const std::size_t n_pairs = n * std::size_t(nb_);
  if (n > cap_) {
    cudaFree(src_);
    cudaFree(demand_);
    cudaFree(n_recv_);
    cudaFree(grant_);
    cudaFree(work_);
    src_ = nullptr, demand_ = nullptr, n_recv_ = nullptr, grant_ = nullptr, work_ = nullptr;
    cap_ = std::max(n, cap_ + cap_ / 2);
    const char* what = "allocation of the exchange buffers";
    cuda_check(cudaMalloc(&src_, cap_ * sizeof(CloudGasSource)), what);
    cuda_check(cudaMalloc(&demand_, cap_ * sizeof(double)), what);
    cuda_check(cudaMalloc(&n_recv_, cap_ * sizeof(int)), what);
    cuda_check(cudaMalloc(&grant_, cap_ * std::size_t(nb_) * sizeof(double)), what);
    cuda_check(cudaMalloc(&work_, cap_ * std::size_t(nb_) * sizeof(double)), what);
  }
  ngb_.reserve_slots(n, nb_);  // every buffer reserved before the first launch
  ngb_.build_grid(d, box);
  const unsigned cb = cuda_blocks(n, 64);
  if (nb_ <= 64)
    demand_kernel<64><<<cb, 64>>>(d, a, begin, n, box, cp_, nb_, ngb_.grid(), tick_len, src_,
                                  demand_, n_recv_, ngb_.weight(), ngb_.recv_in(), ngb_.slot_in(),
                                  ngb_.rho(), ngb_.h());
  else
    demand_kernel<128><<<cb, 64>>>(d, a, begin, n, box, cp_, nb_, ngb_.grid(), tick_len, src_,
                                   demand_, n_recv_, ngb_.weight(), ngb_.recv_in(), ngb_.slot_in(),
                                   ngb_.rho(), ngb_.h());
  cuda_check_launch("demand_kernel");
  ngb_.sort_pairs(n_pairs, d.n_gas);
  const unsigned pb = cuda_blocks(n_pairs, kThreads);
  // work_ holds the drag shares until the clouds have used them, then the receivers' Delta K.
  grant_kernel<<<pb, kThreads>>>(cp_, d, n_pairs, ngb_.recv(), ngb_.slot(), nb_, demand_,
                                 ngb_.weight(), grant_, work_);
  cuda_check_launch("grant_kernel");
  cloud_kernel<<<cb, 64>>>(d, a, begin, n, cp_, nb_, tick_len, src_, demand_, n_recv_, grant_,
                           work_, ngb_.weight(), ngb_.recv_in(), ngb_.rho(), ngb_.h());
  cuda_check_launch("cloud_kernel");
  // The demands and grants are spent: their buffers take the per-cloud dissipations and the
  // per-share energy the heat floor added.
  double* const diss = demand_;
  double* const floor_added = grant_;
  clear_shares_kernel<<<pb, kThreads>>>(work_, floor_added, n_pairs);
  cuda_check_launch("clear_shares_kernel");
  receive_kernel<<<pb, kThreads>>>(cp_, d, n_pairs, ngb_.recv(), ngb_.slot(), nb_, src_,
                                   ngb_.weight(), work_);
  cuda_check_launch("receive_kernel");
  dissipation_kernel<<<cb, 64>>>(src_, work_, n_recv_, nb_, n, diss);
  cuda_check_launch("dissipation_kernel");
  drag_heat_kernel<<<pb, kThreads>>>(cp_, d, n_pairs, ngb_.recv(), ngb_.slot(), nb_, src_, diss,
                                     ngb_.weight(), floor_added, ft_, a.tick,
                                     double(kTicks) * tick_len, a.all());
  cuda_check_launch("drag_heat_kernel");
  account_kernel<<<1, kThreads>>>(src_, diss, n, floor_added, n_pairs, accounts_);
  cuda_check_launch("account_kernel");
}

}  // namespace mpsph
