// The feedback stage on the device: the same functions as apply_feedback() of feedback.cpp
// (feedback_kern.hpp, feedback_grid_kern.hpp), in the same order of operations per particle.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/cub.cuh>

#include "core/block_sum_gpu.cuh"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "feedback/feedback_gpu.hpp"
#include "feedback/gas_neighbours_gpu.cuh"
#include "feedback/ssp_params.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;

// One thread per active non-gas particle (slot s = active entry gas_count + s).
template <int K>
__global__ void star_kernel(ParticleView p, ActiveSet a, std::size_t first, std::size_t n_slots,
                            Box box, FeedbackKernParams kp, const FeedbackGrid* grid, double time,
                            double tick_len, StarRelease* rel, double* weight, uint32_t* recv,
                            uint32_t* val) {
  const std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (s >= n_slots) return;
  const int nb = kp.n_ngb;
  clear_gas_shares(s, nb, recv, val);
  rel[s] = StarRelease{};
  const std::size_t i = a[first + s];
  if (!is_feedback_star(p, i)) return;
  const double dt = a.all() ? double(kTicks) * tick_len : particle_step(p, i, tick_len);
  const StarRelease r = star_release(kp, p, i, time, dt);
  if (!(r.dm > 0.0) && !(r.de > 0.0)) return;
  const int n =
      gather_gas_shares<K>(p, box, *grid, p.pos[i], s, nb, recv, weight, nullptr, nullptr);
  if (n == 0) return;
  rel[s] = r;
  lose_ejecta(p, i, r.dm);
}

// One thread per run of equal receivers in the sorted pairs: the shares in star order.
__global__ void receive_kernel(ParticleView p, std::size_t n_pairs, const uint32_t* key,
                               const uint32_t* val, int nb, const StarRelease* rel,
                               const double* weight, FeedbackTiming ft, int64_t now, double length,
                               bool all) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (!receiver_run_starts(q, n_pairs, key)) return;
  const std::size_t j = key[q];
  for (std::size_t k = q; k < n_pairs && key[k] == key[q]; ++k)
    receive_feedback(p, j, rel[val[k] / uint32_t(nb)], weight[val[k]]);
  feedback_sync(p, j, ft.gamma, ft.courant, now, length, all);
}

// Minus the SN energy of all slots, summed in a fixed order (one block).
__global__ void energy_kernel(const StarRelease* rel, std::size_t n_slots, double* out) {
  double e = 0.0;
  for (std::size_t s = threadIdx.x; s < n_slots; s += blockDim.x) e += rel[s].de;
  const double total = block_sum<kThreads>(e);
  if (threadIdx.x == 0) *out = -total;
}

}  // namespace

GpuFeedback::GpuFeedback(const SspTable& table, int n_neighbours)
    : table_(table.view()), n_ngb_(n_neighbours) {
  const std::vector<double>& v = table.values();
  cuda_check(cudaMalloc(&values_, v.size() * sizeof(double)), "allocation of the SSP table");
  cuda_check(cudaMemcpy(values_, v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice),
             "copy of the SSP table to the device");
  table_.values = static_cast<const double*>(values_);
  table_.model.ww95 = nullptr;  // host memory: never read by the kernels
  cuda_check(cudaMalloc(&injected_, sizeof(double)), "allocation of the feedback energy");
  cuda_check(cudaMemset(injected_, 0, sizeof(double)), "feedback energy");
}

GpuFeedback::~GpuFeedback() {
  for (void* p : {values_, injected_, rel_}) cudaFree(p);
}

void GpuFeedback::apply(const ParticleView& d, const ActiveSet& a, const Box& box,
                        FeedbackKernParams kp, const FeedbackTiming& ft, double time,
                        double tick_len) {
  double* injected = static_cast<double*>(injected_);
  const std::size_t first = a.gas_count(d.n_gas);
  const std::size_t n_slots = a.count(d.n) - first;
  if (n_slots == 0 || d.n_gas == 0) {
    cuda_check(cudaMemsetAsync(injected, 0, sizeof(double)), "feedback energy");
    return;
  }
  const std::size_t n_pairs = n_slots * std::size_t(n_ngb_);
  if (n_slots > rel_cap_) {
    cudaFree(rel_);
    rel_ = nullptr;
    rel_cap_ = std::max(n_slots, rel_cap_ + rel_cap_ / 2);
    cuda_check(cudaMalloc(&rel_, rel_cap_ * sizeof(StarRelease)),
               "allocation of the feedback buffers");
  }
  kp.table = table_;
  kp.n_ngb = n_ngb_;
  // --- the gas grid (every buffer reserved before the first launch)
  ngb_.reserve_slots(n_slots, n_ngb_);
  ngb_.build_grid(d, box);
  // --- the stars: release, neighbours, weights; the stars lose their ejecta
  auto* rel = static_cast<StarRelease*>(rel_);
  const unsigned sb = cuda_blocks(n_slots, 64);
  if (n_ngb_ <= 64)
    star_kernel<64><<<sb, 64>>>(d, a, first, n_slots, box, kp, ngb_.grid(), time, tick_len, rel,
                                ngb_.weight(), ngb_.recv_in(), ngb_.slot_in());
  else
    star_kernel<kFeedbackMaxNeighbours><<<sb, 64>>>(d, a, first, n_slots, box, kp, ngb_.grid(),
                                                    time, tick_len, rel, ngb_.weight(),
                                                    ngb_.recv_in(), ngb_.slot_in());
  cuda_check_launch("star_kernel");
  energy_kernel<<<1, kThreads>>>(rel, n_slots, injected);
  cuda_check_launch("energy_kernel");
  // --- each receiver takes its shares in star order (the radix sort is stable)
  ngb_.sort_pairs(n_pairs, d.n_gas);
  receive_kernel<<<cuda_blocks(n_pairs, kThreads), kThreads>>>(
      d, n_pairs, ngb_.recv(), ngb_.slot(), n_ngb_, rel, ngb_.weight(), ft, a.tick,
      double(kTicks) * tick_len, a.all());
  cuda_check_launch("receive_kernel");
}

}  // namespace mpsph
