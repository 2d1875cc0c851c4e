// The device gas grid and the receivers' sort (gas_neighbours_gpu.hpp): the grid of
// build_gas_grid() in gas_neighbours.cpp, with the same cell width.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/cub.cuh>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "feedback/gas_neighbours_gpu.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: reductions in a reproducible order

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

// The grid from the partials (the cell width of build_gas_grid in gas_neighbours.cpp: `cell` when
// > 0, else from the mean log h).
__global__ void grid_make_kernel(const GridPartial* partial, unsigned n_partial, Box box,
                                 double cell, std::size_t n_gas_total, const uint64_t* keys,
                                 const uint32_t* idx, FeedbackGrid* out) {
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
    double w = cell > 0.0 ? cell : (m.n_h > 0.0 ? exp(m.log_h / m.n_h) : 0.0);
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

}  // namespace

GpuGasNeighbours::GpuGasNeighbours() {
  const char* what = "allocation of the gas-neighbour grid";
  cuda_check(cudaMalloc(&grid_, sizeof(FeedbackGrid)), what);
  cuda_check(cudaMemset(grid_, 0, sizeof(FeedbackGrid)), what);
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(GridPartial)), what);
}

GpuGasNeighbours::~GpuGasNeighbours() {
  for (void* p : {grid_, partial_, keys_in_, keys_, idx_in_, idx_, weight_, rho_, h_, pair_key_in_,
                  pair_key_, pair_val_in_, pair_val_, temp_})
    cudaFree(p);
}

void GpuGasNeighbours::reserve_temp(std::size_t n_gas, std::size_t n_pairs) {
  std::size_t b1 = 0, b2 = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, b1, static_cast<uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
                 static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n_gas)),
             "gas-neighbour sort (size query)");
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, b2, static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                 static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n_pairs)),
             "gas-neighbour sort (size query)");
  const std::size_t bytes = std::max(b1, b2);
  if (bytes > temp_bytes_) {
    cudaFree(temp_);
    temp_ = nullptr;
    cuda_check(cudaMalloc(&temp_, bytes), "allocation of the gas-neighbour buffers");
    temp_bytes_ = bytes;
  }
}

void GpuGasNeighbours::build_grid(const ParticleView& d, const Box& box, double cell) {
  if (d.n_gas >= std::size_t(INT_MAX)) throw Error("GPU gas neighbours: more than 2^31 gas");
  const char* what = "allocation of the gas-neighbour buffers";
  if (d.n_gas > gas_cap_) {
    for (void** p : {&keys_in_, &keys_, &idx_in_, &idx_}) cudaFree(*p), *p = nullptr;
    gas_cap_ = std::max(d.n_gas, gas_cap_ + gas_cap_ / 2);
    cuda_check(cudaMalloc(&keys_in_, gas_cap_ * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&keys_, gas_cap_ * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&idx_in_, gas_cap_ * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&idx_, gas_cap_ * sizeof(uint32_t)), what);
  }
  reserve_temp(d.n_gas, pair_cap_);
  auto* grid = static_cast<FeedbackGrid*>(grid_);
  auto* partial = static_cast<GridPartial*>(partial_);
  auto* keys_in = static_cast<uint64_t*>(keys_in_);
  auto* keys = static_cast<uint64_t*>(keys_);
  auto* idx_in = static_cast<uint32_t*>(idx_in_);
  auto* idx = static_cast<uint32_t*>(idx_);
  const unsigned gb = std::max(1u, std::min(kMaxBlocks, cuda_blocks(d.n_gas, kThreads)));
  grid_partial_kernel<<<gb, kThreads>>>(d, partial);
  cuda_check_launch("grid_partial_kernel");
  grid_make_kernel<<<1, kThreads>>>(partial, gb, box, cell, d.n_gas, keys, idx, grid);
  cuda_check_launch("grid_make_kernel");
  if (d.n_gas == 0) return;
  gas_key_kernel<<<cuda_blocks(d.n_gas, kThreads), kThreads>>>(d, grid, keys_in, idx_in);
  cuda_check_launch("gas_key_kernel");
  std::size_t bytes = temp_bytes_;
  cuda_check(
      cub::DeviceRadixSort::SortPairs(temp_, bytes, keys_in, keys, idx_in, idx, int(d.n_gas)),
      "gas-neighbour grid sort");
}

void GpuGasNeighbours::reserve_slots(std::size_t n_slots, int nb) {
  const std::size_t n_pairs = n_slots * std::size_t(nb);
  if (n_pairs >= std::size_t(INT_MAX))
    throw Error("GPU gas neighbours: more than 2^31 (source, neighbour) pairs in a step");
  const char* what = "allocation of the gas-neighbour buffers";
  if (n_slots > slot_cap_) {
    for (void** p : {&rho_, &h_}) cudaFree(*p), *p = nullptr;
    slot_cap_ = std::max(n_slots, slot_cap_ + slot_cap_ / 2);
    cuda_check(cudaMalloc(&rho_, slot_cap_ * sizeof(double)), what);
    cuda_check(cudaMalloc(&h_, slot_cap_ * sizeof(double)), what);
  }
  if (n_pairs > pair_cap_) {
    for (void** p : {&weight_, &pair_key_in_, &pair_key_, &pair_val_in_, &pair_val_})
      cudaFree(*p), *p = nullptr;
    pair_cap_ = std::max(n_pairs, pair_cap_ + pair_cap_ / 2);
    cuda_check(cudaMalloc(&weight_, pair_cap_ * sizeof(double)), what);
    cuda_check(cudaMalloc(&pair_key_in_, pair_cap_ * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_key_, pair_cap_ * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_val_in_, pair_cap_ * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&pair_val_, pair_cap_ * sizeof(uint32_t)), what);
  }
  reserve_temp(gas_cap_, pair_cap_);
}

void GpuGasNeighbours::sort_pairs(std::size_t n_pairs, std::size_t n_gas) {
  // The receivers are < n_gas < 2^bits, kNoReceiver's low bits are 2^bits - 1: sorting on the low
  // bits alone (fewer radix passes) gives the order of the full keys.
  int bits = 1;
  while (bits < 32 && (std::size_t(1) << bits) <= n_gas) ++bits;
  std::size_t bytes = temp_bytes_;
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 temp_, bytes, recv_in(), static_cast<uint32_t*>(pair_key_), slot_in(),
                 static_cast<uint32_t*>(pair_val_), int(n_pairs), 0, bits),
             "gas-neighbour pair sort");
}

}  // namespace mpsph
