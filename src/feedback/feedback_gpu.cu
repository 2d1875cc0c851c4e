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
#include "feedback/ssp_params.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: reductions in a reproducible order
constexpr unsigned kNone = 0xFFFFFFFFu;

// Per-block partial of the gas bounding box, sum of log h and count of h > 0 (8 doubles).
struct GridPartial {
  double lo[3], hi[3], log_h, n_h;
};

__device__ void block_reduce(GridPartial& m) {
  __shared__ GridPartial sh[kThreads];
  sh[threadIdx.x] = m;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      GridPartial& a = sh[threadIdx.x];
      const GridPartial& b = sh[threadIdx.x + stride];
      for (int k = 0; k < 3; ++k)
        a.lo[k] = fmin(a.lo[k], b.lo[k]), a.hi[k] = fmax(a.hi[k], b.hi[k]);
      a.log_h += b.log_h;
      a.n_h += b.n_h;
    }
    __syncthreads();
  }
  m = sh[0];
}

__device__ GridPartial empty_partial() {
  GridPartial m;
  for (int k = 0; k < 3; ++k) m.lo[k] = HUGE_VAL, m.hi[k] = -HUGE_VAL;
  m.log_h = 0.0, m.n_h = 0.0;
  return m;
}

__global__ void grid_partial_kernel(ParticleView p, GridPartial* partial) {
  GridPartial m = empty_partial();
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < p.n_gas;
       j += std::size_t(gridDim.x) * blockDim.x) {
    if (p.type[j] != kGas) continue;
    const double x[3] = {p.pos[j].x, p.pos[j].y, p.pos[j].z};
    for (int k = 0; k < 3; ++k) m.lo[k] = fmin(m.lo[k], x[k]), m.hi[k] = fmax(m.hi[k], x[k]);
    if (p.h[j] > 0.0f) m.log_h += log(double(p.h[j])), m.n_h += 1.0;
  }
  block_reduce(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// The grid from the partials (the cell width of build_gas_grid in feedback.cpp).
__global__ void grid_make_kernel(const GridPartial* partial, unsigned n_partial, Box box,
                                 std::size_t n_gas_total, const uint64_t* keys, const uint32_t* idx,
                                 FeedbackGrid* out) {
  GridPartial m = empty_partial();
  for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) {
    const GridPartial& q = partial[b];
    for (int k = 0; k < 3; ++k) m.lo[k] = fmin(m.lo[k], q.lo[k]), m.hi[k] = fmax(m.hi[k], q.hi[k]);
    m.log_h += q.log_h;
    m.n_h += q.n_h;
  }
  block_reduce(m);
  if (threadIdx.x != 0) return;
  const Vec3d lo{m.lo[0], m.lo[1], m.lo[2]}, hi{m.hi[0], m.hi[1], m.hi[2]};
  FeedbackGrid g;
  if (m.lo[0] <= m.hi[0]) {
    double w = m.n_h > 0.0 ? exp(m.log_h / m.n_h) : 0.0;
    if (!(w > 0.0)) {
      const double s = fmax(fmax(hi.x - lo.x, hi.y - lo.y), fmax(hi.z - lo.z, 1e-300));
      w = s / cbrt(double(n_gas_total));
    }
    g = make_feedback_grid(w, lo, hi, box);
    g.n = n_gas_total;  // non-gas entries carry the key UINT64_MAX, which no cell has
  } else {
    g.n = 0;
  }
  g.keys = keys;
  g.idx = idx;
  *out = g;
}

__global__ void gas_key_kernel(ParticleView p, const FeedbackGrid* grid, uint64_t* keys,
                               uint32_t* idx) {
  const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (j >= p.n_gas) return;
  keys[j] = p.type[j] == kGas ? feedback_key(*grid, p.pos[j]) : ~uint64_t(0);
  idx[j] = uint32_t(j);
}

// One thread per active non-gas particle (slot s = active entry gas_count + s).
template <int K>
__global__ void star_kernel(ParticleView p, ActiveSet a, std::size_t first, std::size_t n_slots,
                            Box box, FeedbackKernParams kp, const FeedbackGrid* grid, double time,
                            double tick_len, StarRelease* rel, double* weight, uint32_t* recv,
                            uint32_t* val) {
  const std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (s >= n_slots) return;
  const int nb = kp.n_ngb;
  for (int k = 0; k < nb; ++k) recv[s * nb + k] = kNone, val[s * nb + k] = uint32_t(s * nb + k);
  rel[s] = StarRelease{};
  const std::size_t i = a[first + s];
  if (!is_feedback_star(p, i)) return;
  const double dt = a.all() ? double(kTicks) * tick_len : particle_step(p, i, tick_len);
  const StarRelease r = star_release(kp, p, i, time, dt);
  if ((!(r.dm > 0.0) && !(r.de > 0.0)) || grid->n == 0) return;
  double d2[K + 1];
  uint32_t jj[K + 1];
  uint64_t ids[K + 1];
  NeighbourSet set{0, nb + 1, d2, jj, ids};
  feedback_neighbours(*grid, box, p.pos, p.id, p.pos[i], set);
  const int n = feedback_weights(p, set, nb, weight + s * nb);
  if (n == 0) return;
  for (int k = 0; k < n; ++k) recv[s * nb + k] = set.j[k];
  rel[s] = r;
  p.mass[i] -= r.dm;
}

// One thread per run of equal receivers in the sorted pairs: the shares in star order.
__global__ void receive_kernel(ParticleView p, std::size_t n_pairs, const uint32_t* key,
                               const uint32_t* val, int nb, const StarRelease* rel,
                               const double* weight, FeedbackTiming ft, int64_t now, double length,
                               bool all) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (q >= n_pairs || key[q] == kNone || (q > 0 && key[q - 1] == key[q])) return;
  const std::size_t j = key[q];
  for (std::size_t k = q; k < n_pairs && key[k] == key[q]; ++k)
    receive_feedback(p, j, rel[val[k] / uint32_t(nb)], weight[val[k]]);
  feedback_wake(p, j, ft.gamma, ft.courant, now, length, all);
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
  cuda_check(cudaMalloc(&grid_, sizeof(FeedbackGrid)), "allocation of the feedback grid");
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(GridPartial)),
             "allocation of the feedback grid");
}

GpuFeedback::~GpuFeedback() {
  for (void* p : {values_, injected_, grid_, partial_, keys_in_, keys_, idx_in_, idx_, rel_,
                  weight_, pair_key_in_, pair_key_, pair_val_in_, pair_val_, temp_})
    cudaFree(p);
}

void GpuFeedback::reserve(std::size_t n_gas, std::size_t n_slots) {
  const char* what = "allocation of the feedback buffers";
  const std::size_t n_pairs = n_slots * std::size_t(n_ngb_);
  if (n_gas > gas_cap_) {
    for (void** p : {&keys_in_, &keys_, &idx_in_, &idx_}) cudaFree(*p), *p = nullptr;
    gas_cap_ = std::max(n_gas, gas_cap_ + gas_cap_ / 2);
    cuda_check(cudaMalloc(&keys_in_, gas_cap_ * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&keys_, gas_cap_ * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&idx_in_, gas_cap_ * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&idx_, gas_cap_ * sizeof(uint32_t)), what);
  }
  if (n_slots > slot_cap_) {
    for (void** p : {&rel_, &weight_, &pair_key_in_, &pair_key_, &pair_val_in_, &pair_val_})
      cudaFree(*p), *p = nullptr;
    slot_cap_ = std::max(n_slots, slot_cap_ + slot_cap_ / 2);
    const std::size_t cap_pairs = slot_cap_ * std::size_t(n_ngb_);
    cuda_check(cudaMalloc(&rel_, slot_cap_ * sizeof(StarRelease)), what);
    cuda_check(cudaMalloc(&weight_, cap_pairs * sizeof(double)), what);
    cuda_check(cudaMalloc(&pair_key_in_, cap_pairs * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_key_, cap_pairs * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_val_in_, cap_pairs * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_val_, cap_pairs * sizeof(uint32_t)), what);
  }
  std::size_t b1 = 0, b2 = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, b1, static_cast<uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
                 static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n_gas)),
             "feedback sort (size query)");
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, b2, static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                 static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n_pairs)),
             "feedback sort (size query)");
  const std::size_t bytes = std::max(b1, b2);
  if (bytes > temp_bytes_) {
    cudaFree(temp_);
    temp_ = nullptr;
    cuda_check(cudaMalloc(&temp_, bytes), what);
    temp_bytes_ = bytes;
  }
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
  if (n_pairs >= std::size_t(INT_MAX) || d.n_gas >= std::size_t(INT_MAX))
    throw Error("GPU feedback: more than 2^31 (star, neighbour) pairs or gas particles in a step");
  reserve(d.n_gas, n_slots);
  kp.table = table_;
  kp.n_ngb = n_ngb_;
  auto* grid = static_cast<FeedbackGrid*>(grid_);
  auto* partial = static_cast<GridPartial*>(partial_);
  // --- the gas grid
  const unsigned gb = std::max(1u, std::min(kMaxBlocks, cuda_blocks(d.n_gas, kThreads)));
  grid_partial_kernel<<<gb, kThreads>>>(d, partial);
  cuda_check_launch("grid_partial_kernel");
  auto* keys_in = static_cast<uint64_t*>(keys_in_);
  auto* keys = static_cast<uint64_t*>(keys_);
  auto* idx_in = static_cast<uint32_t*>(idx_in_);
  auto* idx = static_cast<uint32_t*>(idx_);
  grid_make_kernel<<<1, kThreads>>>(partial, gb, box, d.n_gas, keys, idx, grid);
  cuda_check_launch("grid_make_kernel");
  gas_key_kernel<<<cuda_blocks(d.n_gas, kThreads), kThreads>>>(d, grid, keys_in, idx_in);
  cuda_check_launch("gas_key_kernel");
  std::size_t bytes = temp_bytes_;
  cuda_check(
      cub::DeviceRadixSort::SortPairs(temp_, bytes, keys_in, keys, idx_in, idx, int(d.n_gas)),
      "feedback gas sort");
  // --- the stars: release, neighbours, weights; the stars lose their ejecta
  auto* rel = static_cast<StarRelease*>(rel_);
  auto* weight = static_cast<double*>(weight_);
  auto* pk_in = static_cast<uint32_t*>(pair_key_in_);
  auto* pk = static_cast<uint32_t*>(pair_key_);
  auto* pv_in = static_cast<uint32_t*>(pair_val_in_);
  auto* pv = static_cast<uint32_t*>(pair_val_);
  const unsigned sb = cuda_blocks(n_slots, 64);
  if (n_ngb_ <= 64)
    star_kernel<64><<<sb, 64>>>(d, a, first, n_slots, box, kp, grid, time, tick_len, rel, weight,
                                pk_in, pv_in);
  else
    star_kernel<kFeedbackMaxNeighbours><<<sb, 64>>>(d, a, first, n_slots, box, kp, grid, time,
                                                    tick_len, rel, weight, pk_in, pv_in);
  cuda_check_launch("star_kernel");
  energy_kernel<<<1, kThreads>>>(rel, n_slots, injected);
  cuda_check_launch("energy_kernel");
  // --- each receiver takes its shares in star order (the radix sort is stable)
  bytes = temp_bytes_;
  cuda_check(cub::DeviceRadixSort::SortPairs(temp_, bytes, pk_in, pk, pv_in, pv, int(n_pairs)),
             "feedback pair sort");
  receive_kernel<<<cuda_blocks(n_pairs, kThreads), kThreads>>>(
      d, n_pairs, pk, pv, n_ngb_, rel, weight, ft, a.tick, double(kTicks) * tick_len, a.all());
  cuda_check_launch("receive_kernel");
}

}  // namespace mpsph
