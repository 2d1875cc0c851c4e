// DeviceRankOwners (rank_owners.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "core/particle_cost.hpp"
#include "core/sfc_key.hpp"
#include "core/sorted_keys.hpp"
#include "core/warp_gpu.cuh"
#include "gravity/bounding_box_gpu.cuh"
#include "gravity/device_buffer.cuh"
#include "gravity/device_select.cuh"
#include "run/rank_owners.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;

// The sums by owner that owners_kernel counts (RankOwners): kOwnedSums counters per rank.
enum OwnedSum { kParticles, kWalked, kWalkUnits, kNeighbours, kOwnedSums };

using gpu::kFullMask;
using gpu::lane_id;
using gpu::leads;

// The sum of v over the lanes of `lanes` (a warp-wide call: every lane passes its own `lanes`,
// the set of lanes with its value of some grouping; each group gets its own sum). Whole numbers
// (particle costs, counts) sum exactly in any order.
__device__ __forceinline__ double group_sum(double v, unsigned lanes) {
  if (lanes == kFullMask) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFullMask, v, o);
    return v;
  }
  // Mixed groups (a warp across a cut or a candidate key): each lane of a group adds its peers'.
  double sum = 0.0;
  for (unsigned rest = lanes; rest != 0; rest &= rest - 1) {
    const int from = __ffs(int(rest)) - 1;
    sum += __shfl_sync(lanes, v, from);
  }
  return sum;
}

// owner[i], flag[i] = owner != me, and per block the particles, the walked ones, their walk
// units and the cost neighbours by owner and the counts of the staying particles by type, added
// into owned[kOwnedSums P] (sum k of rank r at k P + r) and counts[kNumTypes + 1]. Shared memory:
// kOwnedSums P counters. The lanes of a warp with one owner (all of them, but for warps across
// a cut) add their sums once (__match_any_sync, __reduce_add_sync): one shared atomic per warp
// and sum where one per particle serialised every block's 256 threads on the same counter
// (~5 ms of 2e7 particles on an H200, 2026-11-27).
__global__ void owners_kernel(ParticleView v, Box box, Vec3d lo, double edge,
                              const uint64_t* cut_begin, int P, int me, int* owner, uint8_t* flag,
                              uint32_t* iota, unsigned long long* owned,
                              unsigned long long* counts) {
  extern __shared__ unsigned long long block_owned[];
  __shared__ unsigned long long block_counts[kNumTypes + 1];
  for (int r = int(threadIdx.x); r < kOwnedSums * P; r += int(blockDim.x)) block_owned[r] = 0;
  if (threadIdx.x <= kNumTypes) block_counts[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  int r = -1, slot = -1;  // -1: no particle
  uint32_t walk = 0, k = 0;
  if (i < v.n) {
    const uint64_t key = sfc_key(wrap_position(v.pos[i], box), lo, edge);
    // The last cut at or below the key: upper_bound - 1 (keys < 2^63: key + 1 does not wrap).
    r = int(lower_bound_key(cut_begin, std::size_t(P) + 1, key + 1)) - 1;
    owner[i] = r;
    flag[i] = r != me ? 1 : 0;
    iota[i] = uint32_t(i);
    const uint8_t t = v.type[i];
    walk = v.walk_cost[i];
    k = uint32_t(max(cost_neighbours(t, v.nngb[i]), 0));
    slot = r != me ? kNumTypes : min(int(t), kNumTypes);
  }
  // Per owner: the lowest lane of each group adds the group's sums. Walk units in two 16-bit
  // halves (32 lanes of 32-bit units could overflow one 32-bit sum).
  const unsigned peers = __match_any_sync(kFullMask, r);
  const unsigned walked = __reduce_add_sync(peers, walk > 0 ? 1u : 0u);
  const unsigned units_lo = __reduce_add_sync(peers, walk & 0xffffu);
  const unsigned units_hi = __reduce_add_sync(peers, walk >> 16);
  const unsigned neighbours = __reduce_add_sync(peers, k);
  if (r >= 0 && leads(peers)) {
    atomicAdd(&block_owned[kParticles * P + r], (unsigned long long)__popc(peers));
    if (walked > 0) {
      atomicAdd(&block_owned[kWalked * P + r], (unsigned long long)walked);
      atomicAdd(&block_owned[kWalkUnits * P + r],
                (unsigned long long)units_lo + ((unsigned long long)units_hi << 16));
    }
    if (neighbours > 0)
      atomicAdd(&block_owned[kNeighbours * P + r], (unsigned long long)neighbours);
  }
  const unsigned same_slot = __match_any_sync(kFullMask, slot);
  if (slot >= 0 && leads(same_slot))
    atomicAdd(&block_counts[slot], (unsigned long long)__popc(same_slot));
  __syncthreads();
  for (int q = int(threadIdx.x); q < kOwnedSums * P; q += int(blockDim.x))
    if (block_owned[q] != 0) atomicAdd(&owned[q], block_owned[q]);
  if (threadIdx.x <= kNumTypes && block_counts[threadIdx.x] != 0)
    atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
}

// keys[i] and costs[i] of every particle; their sum added into *total (whole numbers: exact).
__global__ void keys_costs_kernel(ParticleView v, Box box, Vec3d lo, double edge, CostWeights w,
                                  uint64_t* keys, double* costs, double* total) {
  __shared__ double block_total;
  if (threadIdx.x == 0) block_total = 0.0;
  __syncthreads();
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  double c = 0.0;
  if (i < v.n) {
    keys[i] = sfc_key(wrap_position(v.pos[i], box), lo, edge);
    costs[i] = c = particle_cost(v.type[i], v.nngb[i], v.walk_cost[i], w);
  }
  c = group_sum(c, kFullMask);  // one shared atomic per warp
  if (lane_id() == 0 && c != 0.0) atomicAdd(&block_total, c);
  __syncthreads();
  if (threadIdx.x == 0 && block_total != 0.0) atomicAdd(total, block_total);
}

// bins[b] += the cost of the particles whose key has exactly b of the m ascending `sorted` keys
// at or below it (upper_bound): the particles with keys < sorted[j] are those of bins [0, j].
// Shared: the m keys and m + 1 sums (m <= DeviceRankOwners::kMaxCandidates: 32 kB); one atomic
// per warp and bin.
__global__ void below_bins_kernel(const uint64_t* keys, const double* costs, std::size_t n,
                                  const uint64_t* sorted, int m, double* bins) {
  extern __shared__ unsigned char shared[];
  uint64_t* s = reinterpret_cast<uint64_t*>(shared);
  double* sums = reinterpret_cast<double*>(s + m);
  for (int j = int(threadIdx.x); j < m; j += int(blockDim.x)) s[j] = sorted[j];
  for (int j = int(threadIdx.x); j <= m; j += int(blockDim.x)) sums[j] = 0.0;
  __syncthreads();
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  // upper_bound of the key among the candidates (keys < 2^63: key + 1 does not wrap); the lanes
  // of a warp with one bin (consecutive keys: all of them, as a rule) add their costs once.
  const int bin = i < n ? int(lower_bound_key(s, std::size_t(m), keys[i] + 1)) : -1;
  const unsigned peers = __match_any_sync(kFullMask, bin);
  const double sum = group_sum(i < n ? costs[i] : 0.0, peers);
  if (bin >= 0 && leads(peers) && sum != 0.0) atomicAdd(&sums[bin], sum);
  __syncthreads();
  for (int j = int(threadIdx.x); j <= m; j += int(blockDim.x))
    if (sums[j] != 0.0) atomicAdd(&bins[j], sums[j]);
}

__global__ void mark_removed_kernel(uint8_t* type, const uint32_t* index, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) type[index[k]] = kRemoved;
}

}  // namespace

// Kept between order stages (the decomposition runs at each).
struct DeviceRankOwners::Scratch {
  gpu::DeviceBuffer<int> owner, owner_out;
  gpu::DeviceBuffer<uint8_t> flag;
  gpu::DeviceBuffer<uint32_t> iota, leaving;
  gpu::DeviceBuffer<uint64_t> cuts;
  gpu::DeviceBuffer<unsigned long long> owned, counts;
  gpu::DeviceBuffer<uint32_t> pack_index;  // pack_records' particles and records
  gpu::DeviceBuffer<unsigned char> records;
  // A re-cut's: position bounds, keys and costs (n_keys of them), cut candidates and sums.
  gpu::DeviceBuffer<gpu::Box6> partial;
  gpu::DeviceBuffer<uint64_t> keys, mids;
  gpu::DeviceBuffer<double> costs, total, below;
  std::size_t n_keys = 0;
  gpu::FlaggedSelect flagged;
};

DeviceRankOwners::DeviceRankOwners() : s_(std::make_unique<Scratch>()) {}
DeviceRankOwners::~DeviceRankOwners() = default;

RankOwners DeviceRankOwners::find(const DeviceParticles& d, const Box& box, const Vec3d& cube_lo,
                                  double cube_edge, const std::vector<uint64_t>& cut_begin,
                                  int me) {
  const int P = int(cut_begin.size()) - 1;
  RankOwners out;
  out.particles.assign(std::size_t(P), 0);
  out.walked.assign(std::size_t(P), 0);
  out.walk_units.assign(std::size_t(P), 0);
  out.neighbours.assign(std::size_t(P), 0);
  const std::size_t n = d.size();
  if (n == 0) return out;
  Scratch& s = *s_;
  const std::size_t n_owned = kOwnedSums * std::size_t(P);
  s.owner.reserve(n, "particle owners");
  s.owner_out.reserve(n, "leaving particles' owners");
  s.flag.reserve(n, "leaving flags");
  s.iota.reserve(n, "particle indices");
  s.leaving.reserve(n, "leaving particles");
  s.cuts.reserve(cut_begin.size(), "domain cuts");
  s.owned.reserve(n_owned, "particles, walks and neighbours by owner");
  s.counts.reserve(kNumTypes + 1, "particle counts by type");
  copy_to_device(s.cuts.get(), cut_begin, cut_begin.size());
  cuda_check(cudaMemset(s.owned.get(), 0, n_owned * sizeof(unsigned long long)),
             "particles, walks and neighbours by owner");
  cuda_check(cudaMemset(s.counts.get(), 0, (kNumTypes + 1) * sizeof(unsigned long long)),
             "particle counts");
  owners_kernel<<<cuda_blocks(n, kThreads), kThreads, n_owned * sizeof(unsigned long long)>>>(
      d.view(), box, cube_lo, cube_edge, s.cuts.get(), P, me, s.owner.get(), s.flag.get(),
      s.iota.get(), s.owned.get(), s.counts.get());
  cuda_check_launch("owners_kernel");
  std::vector<unsigned long long> owned(n_owned);
  copy_to_host(owned, s.owned.get(), owned.size());
  for (std::size_t r = 0; r < std::size_t(P); ++r) {
    auto sum = [&](OwnedSum k) { return uint64_t(owned[std::size_t(k) * std::size_t(P) + r]); };
    out.particles[r] = sum(kParticles), out.walked[r] = sum(kWalked);
    out.walk_units[r] = sum(kWalkUnits), out.neighbours[r] = sum(kNeighbours);
  }
  std::vector<unsigned long long> counts(kNumTypes + 1);
  copy_to_host(counts, s.counts.get(), counts.size());
  for (std::size_t t = 0; t <= kNumTypes; ++t) out.counts[t] = std::size_t(counts[t]);
  const std::size_t m =
      s.flagged(s.iota.get(), s.flag.get(), n, s.leaving.get(), "leaving particles");
  s.flagged(s.owner.get(), s.flag.get(), n, s.owner_out.get(), "leaving particles' owners");
  out.leaving.resize(m);
  out.owner.resize(m);
  copy_to_host(out.leaving, s.leaving.get(), m);
  copy_to_host(out.owner, s.owner_out.get(), m);
  return out;
}

void DeviceRankOwners::bounds(const DeviceParticles& d, Vec3d& lo, Vec3d& hi) {
  gpu::position_bounds(d.view().pos, d.size(), s_->partial, lo, hi);
}

double DeviceRankOwners::keys_and_costs(const DeviceParticles& d, const Box& box,
                                        const Vec3d& cube_lo, double cube_edge,
                                        const CostWeights& w) {
  Scratch& s = *s_;
  const std::size_t n = d.size();
  s.n_keys = n;
  if (n == 0) return 0.0;
  s.keys.reserve(n, "particle keys");
  s.costs.reserve(n, "particle costs");
  s.total.reserve(1, "cost total");
  cuda_check(cudaMemset(s.total.get(), 0, sizeof(double)), "cost total");
  keys_costs_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(
      d.view(), box, cube_lo, cube_edge, w, s.keys.get(), s.costs.get(), s.total.get());
  cuda_check_launch("keys_costs_kernel");
  double total = 0.0;
  cuda_check(cudaMemcpy(&total, s.total.get(), sizeof(double), cudaMemcpyDeviceToHost),
             "cost total");
  return total;
}

void DeviceRankOwners::weight_below(const std::vector<uint64_t>& mids, std::vector<double>& below) {
  Scratch& s = *s_;
  below.assign(mids.size(), 0.0);
  if (s.n_keys == 0 || mids.empty()) return;
  if (mids.size() > kMaxCandidates)
    throw Error("weight_below: " + std::to_string(mids.size()) + " candidate keys, at most " +
                std::to_string(kMaxCandidates));
  // The candidates ascending and unique; each particle's cost into the bin of its key among them,
  // then prefix sums.
  std::vector<uint64_t> sorted(mids);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const int m = int(sorted.size());
  s.mids.reserve(sorted.size(), "cut candidates");
  s.below.reserve(sorted.size() + 1, "cost by cut candidate");
  copy_to_device(s.mids.get(), sorted, sorted.size());
  cuda_check(cudaMemset(s.below.get(), 0, (sorted.size() + 1) * sizeof(double)), "cost bins");
  below_bins_kernel<<<cuda_blocks(s.n_keys, kThreads), kThreads,
                      std::size_t(m) * sizeof(uint64_t) + std::size_t(m + 1) * sizeof(double)>>>(
      s.keys.get(), s.costs.get(), s.n_keys, s.mids.get(), m, s.below.get());
  cuda_check_launch("below_bins_kernel");
  std::vector<double> bins(sorted.size() + 1);
  copy_to_host(bins, s.below.get(), bins.size());
  std::vector<double> prefix(sorted.size());  // the cost below sorted[j]: bins [0, j]
  double run = 0.0;
  for (std::size_t j = 0; j < sorted.size(); ++j) prefix[j] = run += bins[j];
  for (std::size_t k = 0; k < mids.size(); ++k)
    below[k] = prefix[std::size_t(std::lower_bound(sorted.begin(), sorted.end(), mids[k]) -
                                  sorted.begin())];
}

const unsigned char* DeviceRankOwners::pack_records(const DeviceParticles& d,
                                                    const std::vector<uint32_t>& index) {
  Scratch& s = *s_;
  const std::size_t n = index.size();
  s.pack_index.reserve(std::max<std::size_t>(n, 1), "migrating particles");
  s.records.reserve(std::max<std::size_t>(n * d.record_bytes(), 1), "migrating records");
  copy_to_device(s.pack_index.get(), index, n);
  d.pack_on_device(s.pack_index.get(), n, s.records.get());
  return s.records.get();
}

void DeviceRankOwners::mark_removed(DeviceParticles& d, const std::vector<uint32_t>& index) {
  if (index.empty()) return;
  Scratch& s = *s_;
  s.leaving.reserve(index.size(), "leaving particles");
  copy_to_device(s.leaving.get(), index, index.size());
  mark_removed_kernel<<<cuda_blocks(index.size(), kThreads), kThreads>>>(
      d.view().type, s.leaving.get(), index.size());
  cuda_check_launch("mark_removed_kernel");
}

}  // namespace mpsph
