// ResidentSph (resident_sph_gpu.hpp): the halo's per-particle work on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <vector>

#include "core/active_set.hpp"
#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/warp_gpu.cuh"
#include "gravity/bounding_box_gpu.cuh"
#include "gravity/device_buffer.cuh"
#include "gravity/device_select.cuh"
#include "sph/box_levels.hpp"
#include "sph/neighbour_search.hpp"  // kTreeRadiusSlack
#include "sph/resident_sph_gpu.hpp"
#include "sph/sph_gpu.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;
using gpu::kFullMask;

__global__ void iota_kernel(uint32_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = uint32_t(i);
}

// radius[i] = factor h_i, or `fallback` where h_i is not set (h <= 0).
__global__ void radius_kernel(const float* h, std::size_t n, double factor, double fallback,
                              double* radius) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) radius[i] = h[i] > 0.f ? factor * double(h[i]) : fallback;
}

static_assert(kThreads == unsigned(gpu::kBoxThreads), "the block reductions' width");

// Per block: the bounding box of the positions (grid-stride) and the count of h <= 0.
constexpr unsigned kBoundsBlocks = 256;
struct Bounds {
  gpu::Box6 box;
  double without_h;
};
__global__ void bounds_kernel(const Vec3d* pos, const float* h, std::size_t n, Bounds* partial) {
  gpu::Box6 b = gpu::detail::empty_box();
  double without = 0.0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    gpu::detail::box_merge(
        b, gpu::Box6{{pos[i].x, pos[i].y, pos[i].z}, {pos[i].x, pos[i].y, pos[i].z}});
    without += h[i] > 0.f ? 0.0 : 1.0;
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  without = Reduce(temp).Sum(without);
  b = gpu::detail::box_block_reduce(b);
  if (threadIdx.x == 0) partial[blockIdx.x] = Bounds{b, without};
}

// Entry k of list[0, count) (null: 0 .. count - 1) as grow_boxes takes it: wrapped position,
// scale, radius (null: 0).
struct DevicePoints {
  const Vec3d* pos;
  const uint32_t* list;
  const double* scale;
  const double* radius;
  Box box;
  MPSPH_HD BoxPoint operator()(std::size_t k) const {
    const uint32_t i = list ? list[k] : uint32_t(k);
    return {wrap_position(pos[i], box), scale[i], radius ? radius[i] : 0.0};
  }
};

struct CountBox {
  MPSPH_HD void operator()(const SearchBox&) {}
};

// Entry k of a chunk [first, end) for a warp whose lanes all run grow_boxes alike: at every 32nd
// entry each lane reads one of the next 32 (coalesced), and entry k comes from its lane by
// shuffles, so every lane holds the same points and takes the same path.
struct WarpPoints {
  const DevicePoints& points;
  std::size_t first, end;
  mutable BoxPoint held;  // this lane's entry of the current 32
  __device__ BoxPoint operator()(std::size_t k) const {
    const int j = int((k - first) % 32u);
    if (j == 0) {
      const std::size_t mine = k + gpu::lane_id();
      held = mine < end ? points(mine) : BoxPoint{};
    }
    BoxPoint p;
    p.x.x = __shfl_sync(kFullMask, held.x.x, j);
    p.x.y = __shfl_sync(kFullMask, held.x.y, j);
    p.x.z = __shfl_sync(kFullMask, held.x.z, j);
    p.scale = __shfl_sync(kFullMask, held.scale, j);
    p.radius = __shfl_sync(kFullMask, held.radius, j);
    return p;
  }
};
// The boxes as every lane grows them, written by the first lane.
struct LaneWriteBox {
  SearchBox* out;
  bool writes;
  __device__ void operator()(const SearchBox& b) {
    if (writes) *out = b;
    ++out;
  }
};

// Warps per block of grow_boxes_kernel.
constexpr unsigned kGrowWarps = 8;

// One warp per chunk of `rule`: the number of its boxes (counts[c]), or, with `offsets` (the
// exclusive sums of the counts), the boxes themselves at out[offsets[c] ...). Every lane runs
// the same grow_boxes over the same points (WarpPoints): the boxes of one thread reading the
// chunk point by point, which waited a memory latency per point (1024 points in a domain-box
// chunk), without the wait: the disk's domain boxes at 1e6 gas per rank, two H200s, 1.80 ms per
// step before, 0.51 after (docs/PERFORMANCE.md, stop 46).
__global__ void grow_boxes_kernel(DevicePoints points, std::size_t count, BoxRule rule,
                                  unsigned* counts, const unsigned* offsets, SearchBox* out) {
  const std::size_t c = blockIdx.x * std::size_t(kGrowWarps) + threadIdx.x / 32u;
  const std::size_t first = c * rule.chunk;
  if (first >= count) return;  // warp-uniform
  const std::size_t end = min(count, first + rule.chunk);
  const WarpPoints at{points, first, end, BoxPoint{}};
  const bool lead = gpu::lane_id() == 0;
  if (offsets) {
    LaneWriteBox emit{out + offsets[c], lead};
    grow_boxes(at, first, end, rule.stretch, emit);
  } else {
    CountBox emit;
    const unsigned n = grow_boxes(at, first, end, rule.stretch, emit);
    if (lead) counts[c] = n;
  }
}

// Up to 32 ranks per near_kernel pass: a query's ranks are the bits of one word.
constexpr std::size_t kRanksPerPass = 32;

// A BoxLevels (sph/box_levels.hpp) on the device.
struct LevelsView {
  const SearchBox *supers, *groups, *boxes;
  unsigned n_supers, n_groups, n_boxes;
};

// The query of thread j: local gas particle j's wrapped position with its reach (null: 0) ...
struct PointQuery {
  const Vec3d* pos;
  const double* reach;
  Box box;
  __device__ SearchBox operator()(std::size_t j) const {
    const Vec3d x = wrap_position(pos[j], box);
    return {x, x, reach ? reach[j] : 0.0};
  }
};
// ... or box j of a list.
struct BoxQuery {
  const SearchBox* boxes;
  __device__ SearchBox operator()(std::size_t j) const { return boxes[j]; }
};

// What near_kernel records of query j: the ranks whose boxes are near it, as bits of mask[j]:
// bit super_rank[s] for super s (RankBoxLayout, sph/box_levels.hpp: every super holds one rank's
// boxes).
struct RanksNear {
  uint32_t* mask;
  const uint32_t* super_rank;
};

// Bit k: whether entry first + k of the n of `level` is near the warp's union w (a lane each).
__device__ unsigned near_members(const SearchBox& w, const SearchBox* level, unsigned first,
                                 unsigned n, const Box& box) {
  const unsigned k = first + threadIdx.x % 32u;
  return __ballot_sync(kFullMask,
                       k < n && box_near(w.lo, w.hi, w.radius, level[k], kTreeRadiusSlack, box));
}

// The lowest set bit's index, cleared from bits (bits != 0).
__device__ unsigned take_lowest(unsigned& bits) {
  const unsigned k = unsigned(__ffs(int(bits))) - 1;
  bits &= bits - 1;
  return k;
}

// The union of the queries q of the lanes in `lanes` (the others count as the empty box), the
// same on every lane of the warp.
__device__ SearchBox warp_union_of(const SearchBox& q, unsigned lanes) {
  SearchBox w = (lanes >> (threadIdx.x % 32u)) & 1u ? q : empty_search_box();
  for (int o = 16; o > 0; o /= 2) {
    w.lo.x = fmin(w.lo.x, __shfl_xor_sync(kFullMask, w.lo.x, o));
    w.lo.y = fmin(w.lo.y, __shfl_xor_sync(kFullMask, w.lo.y, o));
    w.lo.z = fmin(w.lo.z, __shfl_xor_sync(kFullMask, w.lo.z, o));
    w.hi.x = fmax(w.hi.x, __shfl_xor_sync(kFullMask, w.hi.x, o));
    w.hi.y = fmax(w.hi.y, __shfl_xor_sync(kFullMask, w.hi.y, o));
    w.hi.z = fmax(w.hi.z, __shfl_xor_sync(kFullMask, w.hi.z, o));
    w.radius = fmax(w.radius, __shfl_xor_sync(kFullMask, w.radius, o));
  }
  return w;
}

// The supers a block may reach: bit s of the words, up to kMaxSupers supers (beyond, every super
// is taken as near).
constexpr unsigned kMaxSupers = 4096;

// For each query j < n, the ranks with boxes of `lv` near it (box_near) as bits. The block
// first finds the supers near the union of its queries (a thread a super); a warp then walks
// those with the union of its queries that still lack the super's rank (it bounds each such
// lane's distance from below, rounding being monotone): the groups of a near super a lane each,
// then the boxes of a near group a lane each; each lane tests its query against the boxes near
// that union. A super is skipped once every lane has its rank, and a lane that has it leaves the
// union: one query of a large reach (the sparse outskirts of a disk, h large) would otherwise
// make every box near for its whole warp. Blocks of kThreads threads.
template <class Query>
__global__ void near_kernel(Query query, std::size_t n, LevelsView lv, Box box, RanksNear out) {
  constexpr double slack = kTreeRadiusSlack;
  constexpr unsigned kWarps = kThreads / 32u, kWords = kMaxSupers / 32u;
  __shared__ SearchBox warp_union[kWarps];
  __shared__ uint32_t near_supers[kWords];
  const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  const bool valid = j < n;
  const SearchBox q = valid ? query(j) : empty_search_box();
  unsigned w_lanes = __ballot_sync(kFullMask, valid);  // the lanes in the union w
  SearchBox w = warp_union_of(q, w_lanes);
  const unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
  // The block's union, and the supers near it.
  if (lane == 0) warp_union[warp] = w;
  const bool filter = lv.n_supers <= kMaxSupers;
  for (unsigned k = threadIdx.x; k < kWords; k += kThreads) near_supers[k] = filter ? 0u : ~0u;
  __syncthreads();
  if (filter) {
    SearchBox u = warp_union[0];
    for (unsigned k = 1; k < kWarps; ++k) unite(u, warp_union[k]);
    for (unsigned s = threadIdx.x; s < lv.n_supers; s += kThreads)
      if (box_near(u.lo, u.hi, u.radius, lv.supers[s], slack, box))
        atomicOr(&near_supers[s / 32u], 1u << (s % 32u));
    __syncthreads();
  }
  uint32_t ranks = 0;  // this lane's
  auto has = [&](unsigned s) { return !valid || ((ranks >> out.super_rank[s]) & 1u); };
  // w becomes the union of the lanes without super s's rank (recomputed when they changed);
  // returns whether it changed.
  auto narrow = [&](unsigned s) {
    const unsigned need = __ballot_sync(kFullMask, !has(s));
    if (need == w_lanes) return false;
    w_lanes = need;
    w = warp_union_of(q, need);
    return true;
  };
  for (unsigned word = 0; word * 32u < lv.n_supers; ++word) {
    uint32_t bits = filter ? near_supers[word] : ~0u;
    while (bits != 0) {
      const unsigned s = word * 32u + take_lowest(bits);
      if (s >= lv.n_supers) break;
      if (__all_sync(kFullMask, has(s))) continue;  // warp-uniform
      narrow(s);
      if (!box_near(w.lo, w.hi, w.radius, lv.supers[s], slack, box)) continue;  // warp-uniform
      unsigned groups = near_members(w, lv.groups, s * kBoxGroup, lv.n_groups, box);
      while (groups != 0) {
        const unsigned gi = s * kBoxGroup + take_lowest(groups);
        unsigned boxes = near_members(w, lv.boxes, gi * kBoxGroup, lv.n_boxes, box);
        while (boxes != 0) {
          const unsigned bi = gi * kBoxGroup + take_lowest(boxes);
          if (!has(s) && box_near(q.lo, q.hi, q.radius, lv.boxes[bi], slack, box))
            ranks |= 1u << out.super_rank[s];
        }
        if (__all_sync(kFullMask, has(s))) break;
        // Lanes that found the rank leave the union: the groups left are tested again.
        if (groups != 0 && narrow(s))
          groups &= near_members(w, lv.groups, s * kBoxGroup, lv.n_groups, box);
      }
    }
  }
  if (valid) out.mask[j] = ranks;
}

// b[i] = the empty box, i < n (a rank's padding: sph/box_levels.hpp, RankBoxLayout).
__global__ void empty_boxes_kernel(SearchBox* b, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) b[i] = empty_search_box();
}

// out[k] = the union of in[k kBoxGroup, min(n, (k + 1) kBoxGroup)), k < n_out: the groups of the
// boxes, or the supers of the groups (box_unions, sph/box_levels.hpp).
__global__ void unions_kernel(const SearchBox* in, std::size_t n, SearchBox* out,
                              std::size_t n_out) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n_out) return;
  SearchBox u = empty_search_box();
  const std::size_t end = min(n, (k + 1) * kBoxGroup);
  for (std::size_t i = k * kBoxGroup; i < end; ++i) unite(u, in[i]);
  out[k] = u;
}

// flag[j] = bit k of mask[j].
__global__ void rank_flag_kernel(const uint32_t* mask, std::size_t n, unsigned k, uint8_t* flag) {
  const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (j < n) flag[j] = uint8_t((mask[j] >> k) & 1u);
}

// After a smoothing-length round: keep[t] = 1 for the searcher todo[t] whose search radius did not
// cover max(d_{N+1}, 2 h), which then becomes 1.25 x that (parallel/distributed_sph.hpp, 1.).
__global__ void widen_kernel(const uint32_t* todo, std::size_t n_todo, const double* next,
                             const float* h, bool short_of_gas, double edge, double* radius,
                             uint8_t* keep) {
  const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (t >= n_todo) return;
  const uint32_t i = todo[t];
  if (short_of_gas) {
    radius[i] = radius[i] > 0.0 ? 2.0 * radius[i] : edge;
    keep[t] = 1;
    return;
  }
  const double need = fmax(next[i], 2.0 * double(h[i]));
  keep[t] = need > radius[i] ? 1 : 0;
  if (need > radius[i]) radius[i] = 1.25 * need;
}

}  // namespace

struct ResidentSph::Impl {
  explicit Impl(DeviceParticles& l) : local(l) {
    sph.record_pair_lists(false);  // global steps: no limiter or wake-up reads them
    work.set_groups(kCoreFields);
    // What GpuSph's passes read and write, and the halos' fields (their records unpack into it).
    work.set_fields({Field::pos, Field::vel, Field::mass, Field::h, Field::nngb, Field::u,
                     Field::rho, Field::divv, Field::curlv, Field::pressure, Field::csound,
                     Field::balsara, Field::acc, Field::dudt, Field::vsig});
  }

  DeviceParticles& local;
  DeviceParticles work;  // the local gas, then the ghosts
  std::size_t work_capacity = 0;
  GpuSph sph;
  std::size_t n_local = 0;  // local gas at the last start
  std::size_t n_todo = 0;   // searching particles: todo[0, n_todo)
  // The density stage, or a first smoothing-length round by its rule: radius is also each
  // particle's reach.
  bool with_reach = false;
  gpu::DeviceBuffer<double> radius, next;
  gpu::DeviceBuffer<Bounds> partial;
  gpu::DeviceBuffer<uint32_t> todo_lists[2], all, selected;
  int current = 0;  // todo_lists[current] holds the searching particles
  uint32_t* todo() const { return todo_lists[current].get(); }
  // The other list, free between a round's widening and the next: a halo selection's bits.
  uint32_t* spare() const { return todo_lists[1 - current].get(); }
  gpu::DeviceBuffer<uint8_t> flag;
  // The halo's boxes: this rank's grown search boxes (n_search_boxes of them), the boxes a
  // selection tests against as levels (supers, groups, boxes), and scratch.
  gpu::DeviceBuffer<SearchBox> search_boxes, grown, levels, near_boxes;
  std::size_t n_search_boxes = 0;
  gpu::DeviceBuffer<unsigned> chunk_boxes;
  gpu::DeviceBuffer<unsigned char> scan_temp;
  gpu::FlaggedSelect flagged;

  // The boxes of `rule` of points [0, count) into `out` (grown as needed); returns how many.
  std::size_t grow(const DevicePoints& points, std::size_t count, BoxRule rule,
                   gpu::DeviceBuffer<SearchBox>& out) {
    if (count == 0) return 0;
    const std::size_t chunks = (count + rule.chunk - 1) / rule.chunk;
    chunk_boxes.reserve(chunks + 1, "boxes per chunk");
    cuda_check(cudaMemsetAsync(chunk_boxes.get() + chunks, 0, sizeof(unsigned)), "boxes per chunk");
    grow_boxes_kernel<<<cuda_blocks(chunks, kGrowWarps), kGrowWarps * 32u>>>(
        points, count, rule, chunk_boxes.get(), nullptr, nullptr);
    cuda_check_launch("grow_boxes_kernel (count)");
    std::size_t bytes = 0;
    cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, chunk_boxes.get(), chunk_boxes.get(),
                                             int64_t(chunks + 1)),
               "boxes per chunk (scan size)");
    scan_temp.reserve(std::max<std::size_t>(bytes, 1), "boxes per chunk (scan)");
    cuda_check(cub::DeviceScan::ExclusiveSum(scan_temp.get(), bytes, chunk_boxes.get(),
                                             chunk_boxes.get(), int64_t(chunks + 1)),
               "boxes per chunk (scan)");
    unsigned total = 0;
    cuda_check(
        cudaMemcpy(&total, chunk_boxes.get() + chunks, sizeof(unsigned), cudaMemcpyDeviceToHost),
        "halo boxes (count)");
    out.reserve(std::max<std::size_t>(total, 1), "halo boxes");
    grow_boxes_kernel<<<cuda_blocks(chunks, kGrowWarps), kGrowWarps * 32u>>>(
        points, count, rule, nullptr, chunk_boxes.get(), out.get());
    cuda_check_launch("grow_boxes_kernel (write)");
    return total;
  }

  // Levels of n boxes in `levels` ([supers | groups | boxes]), built on the device: the boxes go
  // to `at.boxes` first, then unite() makes the groups and the supers.
  struct LevelsAt {
    SearchBox *supers, *groups, *boxes;
    unsigned n_supers, n_groups, n_boxes;
  };
  LevelsAt levels_for(std::size_t n) {
    const std::size_t n_groups = (n + kBoxGroup - 1) / kBoxGroup;
    const std::size_t n_supers = (n_groups + kBoxGroup - 1) / kBoxGroup;
    levels.reserve(std::max<std::size_t>(n_supers + n_groups + n, 1), "halo box levels");
    SearchBox* base = levels.get();
    return {base,
            base + n_supers,
            base + n_supers + n_groups,
            unsigned(n_supers),
            unsigned(n_groups),
            unsigned(n)};
  }
  LevelsView unite_levels(const LevelsAt& at) {
    if (at.n_groups > 0) {
      unions_kernel<<<cuda_blocks(at.n_groups, kThreads), kThreads>>>(at.boxes, at.n_boxes,
                                                                      at.groups, at.n_groups);
      cuda_check_launch("unions_kernel (groups)");
      unions_kernel<<<cuda_blocks(at.n_supers, kThreads), kThreads>>>(at.groups, at.n_groups,
                                                                      at.supers, at.n_supers);
      cuda_check_launch("unions_kernel (supers)");
    }
    return {at.supers, at.groups, at.boxes, at.n_supers, at.n_groups, at.n_boxes};
  }
  // Ranks [first, end) of `boxes` (rank r's: [offsets[r], offsets[r + 1])) as levels in which
  // every super holds one rank's boxes (RankBoxLayout), with each super's rank in `super_rank`.
  // The queries' bits go to the spare list (masks()), free during a halo's selection: at most
  // n_local queries.
  RanksNear upload_rank_levels(const std::vector<SearchBox>& boxes,
                               const std::vector<std::size_t>& offsets, std::size_t first,
                               std::size_t end, LevelsView& lv) {
    const RankBoxLayout l = rank_box_layout(offsets, first, end);
    const LevelsAt at = levels_for(l.n_boxes);
    empty_boxes_kernel<<<cuda_blocks(l.n_boxes, kThreads), kThreads>>>(at.boxes, l.n_boxes);
    cuda_check_launch("empty_boxes_kernel");
    for (std::size_t r = first; r < end; ++r)
      if (offsets[r + 1] > offsets[r])
        cuda_check(
            cudaMemcpy(at.boxes + l.at[r - first], boxes.data() + offsets[r],
                       (offsets[r + 1] - offsets[r]) * sizeof(SearchBox), cudaMemcpyHostToDevice),
            "halo boxes of a rank");
    lv = unite_levels(at);
    super_rank.reserve(std::max<std::size_t>(l.super_rank.size(), 1), "the supers' ranks");
    copy_to_device(super_rank.get(), l.super_rank, l.super_rank.size());
    return RanksNear{masks(), super_rank.get()};
  }
  uint32_t* masks() const { return spare(); }
  // out[first + k] = the in[j], j < n, with bit k of masks()[j], for each rank first + k of
  // [first, end) with boxes (offsets[r] < offsets[r + 1]); `scratch` holds n entries.
  template <class T>
  void select_by_rank(const T* in, std::size_t n, const std::vector<std::size_t>& offsets,
                      std::size_t first, std::size_t end, T* scratch,
                      std::vector<std::vector<T>>& out, const char* what) {
    for (std::size_t r = first; r < end; ++r) {
      if (offsets[r] == offsets[r + 1]) continue;
      rank_flag_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(masks(), n, unsigned(r - first),
                                                               flag.get());
      cuda_check_launch("rank_flag_kernel");
      const std::size_t k = flagged(in, flag.get(), n, scratch, what);
      out[r].resize(k);
      copy_to_host(out[r], scratch, k);
    }
  }
  // out[r] = the items[j], j < n, whose query (`query(j)`) is near a box of rank r (`boxes`,
  // rank r's at [offsets[r], offsets[r + 1])): one near_kernel pass per kRanksPerPass ranks,
  // each query's ranks as the bits of a word, then a selection per rank; `scratch` holds n.
  template <class Query, class T>
  void select_near(const Query& query, std::size_t n, const std::vector<SearchBox>& boxes,
                   const std::vector<std::size_t>& offsets, const Box& box, const T* items,
                   T* scratch, std::vector<std::vector<T>>& out, const char* what) {
    const std::size_t P = offsets.size() - 1;
    for (std::size_t first = 0; first < P; first += kRanksPerPass) {
      const std::size_t end = std::min(P, first + kRanksPerPass);
      if (offsets[first] == offsets[end]) continue;
      LevelsView lv;
      const RanksNear hits = upload_rank_levels(boxes, offsets, first, end, lv);
      near_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(query, n, lv, box, hits);
      cuda_check_launch(what);
      select_by_rank(items, n, offsets, first, end, scratch, out, what);
    }
  }
  gpu::DeviceBuffer<uint32_t> super_rank;
  ActiveSet set;

  // 0, 1, ..., n_local - 1 in `all` and in todo: every local gas particle searches.
  void start() {
    n_local = local.view().n_gas;
    const std::size_t n = std::max<std::size_t>(n_local, 1);
    radius.reserve(n, "search radii of the local gas");
    all.reserve(n, "local gas indices");
    todo_lists[0].reserve(n, "searching gas");
    todo_lists[1].reserve(n, "searching gas");
    flag.reserve(n, "halo flags");
    selected.reserve(n, "halo members");
    if (n_local > 0) {
      iota_kernel<<<cuda_blocks(n_local, kThreads), kThreads>>>(all.get(), n_local);
      cuda_check_launch("iota_kernel");
    }
    if (n_local > 0)
      cuda_check(
          cudaMemcpyAsync(todo(), all.get(), n_local * sizeof(uint32_t), cudaMemcpyDeviceToDevice),
          "searching gas");
    n_todo = n_local;
  }

  // The work store: the local gas's `fields` (copied on the device) and `n_ghosts` ghosts from
  // records of `halo`; the active set is `list[0, n_active)`.
  void fill_work(std::initializer_list<Field> fields, const Ghosts& ghosts,
                 std::initializer_list<Field> ghost_fields, const uint32_t* list,
                 std::size_t n_active) {
    const std::size_t n = n_local + ghosts.count;
    if (n > work_capacity) {
      work_capacity = n + n / 16;  // halos change size from pass to pass: grow with room
      work.reserve(work_capacity);
    }
    work.set_counts(n, n);
    work.copy_range(local, 0, n_local, 0, fields);
    unpack_ghosts(ghosts, ghost_fields);
    set = ActiveSet{};
    set.index = list;
    set.n = set.n_gas = n_active;
    set.lanes = gpu_task_lanes(n, n_active);
  }
  void unpack_ghosts(const Ghosts& g, std::initializer_list<Field> fields) {
    if (g.on_device)
      work.unpack_on_device(g.data, g.count, n_local, fields);
    else
      work.unpack(g.data, g.count, n_local, fields);
  }
  // pack_on_device's indices and records.
  gpu::DeviceBuffer<uint32_t> send_index;
  gpu::DeviceBuffer<unsigned char> send_records;
};

namespace {

// The fields of each halo (ResidentSph::Halo), the same on both sides: a braced list, used
// within the full expression of the call it is passed to (a macro: a function cannot return one).
#define MPSPH_HALO_FIELDS(halo)                                                        \
  ((halo) == ResidentSph::Halo::h ? std::initializer_list<Field>{Field::pos, Field::h} \
   : (halo) == ResidentSph::Halo::density                                              \
       ? std::initializer_list<Field>{Field::pos, Field::vel, Field::mass, Field::h}   \
       : std::initializer_list<Field>{Field::rho, Field::pressure, Field::csound, Field::balsara})

}  // namespace

ResidentSph::ResidentSph(DeviceParticles& local, DeviceScratch* scratch)
    : impl_(std::make_unique<Impl>(local)) {
  if (scratch) impl_->sph.set_scratch(scratch);
}
ResidentSph::~ResidentSph() = default;

void ResidentSph::pack(Halo halo, const std::vector<uint32_t>& index,
                       std::vector<unsigned char>& out) const {
  impl_->local.pack(index, out, MPSPH_HALO_FIELDS(halo));
}

const unsigned char* ResidentSph::pack_on_device(Halo halo, const std::vector<uint32_t>& index) {
  Impl& m = *impl_;
  const std::size_t n = index.size(), bytes = m.local.record_bytes(MPSPH_HALO_FIELDS(halo));
  m.send_index.reserve(std::max<std::size_t>(n, 1), "halo members to pack");
  m.send_records.reserve(std::max<std::size_t>(n * bytes, 1), "halo records");
  copy_to_device(m.send_index.get(), index, n);
  m.local.pack_on_device(m.send_index.get(), n, m.send_records.get(), MPSPH_HALO_FIELDS(halo));
  return m.send_records.get();
}

ResidentSph::Memory ResidentSph::device_memory() const {
  const Impl& m = *impl_;
  return {m.work.device_bytes(), m.sph.device_bytes(),
          m.radius.bytes() + m.next.bytes() + m.partial.bytes() + m.todo_lists[0].bytes() +
              m.todo_lists[1].bytes() + m.all.bytes() + m.selected.bytes() + m.flag.bytes() +
              m.search_boxes.bytes() + m.grown.bytes() + m.levels.bytes() + m.super_rank.bytes() +
              m.near_boxes.bytes() + m.chunk_boxes.bytes() + m.scan_temp.bytes() +
              m.send_index.bytes() + m.send_records.bytes()};
}

std::size_t ResidentSph::bytes(Halo halo) const {
  return impl_->local.record_bytes(MPSPH_HALO_FIELDS(halo));
}

std::size_t ResidentSph::n_local_gas() const {
  return impl_->local.view().n_gas;
}

ResidentSph::GasBounds ResidentSph::gas_bounds() const {
  Impl& m = *impl_;
  const ParticleView v = m.local.view();
  constexpr double inf = std::numeric_limits<double>::infinity();
  GasBounds g{{inf, inf, inf}, {-inf, -inf, -inf}, 0};
  if (v.n_gas == 0) return g;
  const unsigned blocks = std::min<unsigned>(kBoundsBlocks, cuda_blocks(v.n_gas, kThreads));
  m.partial.reserve(blocks, "gas bounds");
  bounds_kernel<<<blocks, kThreads>>>(v.pos, v.h, v.n_gas, m.partial.get());
  cuda_check_launch("bounds_kernel");
  std::vector<Bounds> p(blocks);
  copy_to_host(p, m.partial.get(), p.size());
  double without = 0.0;
  for (const Bounds& q : p) {
    g.lo = {std::min(g.lo.x, q.box.lo[0]), std::min(g.lo.y, q.box.lo[1]),
            std::min(g.lo.z, q.box.lo[2])};
    g.hi = {std::max(g.hi.x, q.box.hi[0]), std::max(g.hi.y, q.box.hi[1]),
            std::max(g.hi.z, q.box.hi[2])};
    without += q.without_h;
  }
  g.without_h = std::size_t(without);
  return g;
}

void ResidentSph::start_smoothing_lengths(double guess, bool reach) {
  Impl& m = *impl_;
  m.start();
  m.with_reach = reach;
  if (m.n_local == 0) return;
  radius_kernel<<<cuda_blocks(m.n_local, kThreads), kThreads>>>(m.local.view().h, m.n_local, 2.5,
                                                                guess, m.radius.get());
  cuda_check_launch("radius_kernel");
}

void ResidentSph::start_density() {
  Impl& m = *impl_;
  m.start();
  m.with_reach = true;
  if (m.n_local == 0) return;
  radius_kernel<<<cuda_blocks(m.n_local, kThreads), kThreads>>>(m.local.view().h, m.n_local, 2.0,
                                                                0.0, m.radius.get());
  cuda_check_launch("radius_kernel");
}

std::size_t ResidentSph::n_searching() const {
  return impl_->n_todo;
}

std::vector<SearchBox> ResidentSph::domain_boxes(const Box& box) const {
  Impl& m = *impl_;
  const DevicePoints points{m.local.view().pos, nullptr, m.radius.get(),
                            m.with_reach ? m.radius.get() : nullptr, box};
  const std::size_t n = m.grow(points, m.n_local, kDomainBoxes, m.grown);
  std::vector<SearchBox> out(n);
  copy_to_host(out, m.grown.get(), n);
  return out;
}

void ResidentSph::grow_search_boxes(const Box& box) {
  Impl& m = *impl_;
  const DevicePoints points{m.local.view().pos, m.todo(), m.radius.get(), m.radius.get(), box};
  m.n_search_boxes = m.grow(points, m.n_todo, kSearchBoxes, m.search_boxes);
}

std::vector<SearchBox> ResidentSph::search_boxes() const {
  Impl& m = *impl_;
  std::vector<SearchBox> out(m.n_search_boxes);
  copy_to_host(out, m.search_boxes.get(), out.size());
  return out;
}

std::vector<std::vector<SearchBox>> ResidentSph::search_boxes_near(
    const std::vector<SearchBox>& domains, const std::vector<std::size_t>& offsets,
    const Box& box) const {
  Impl& m = *impl_;
  const std::size_t n = m.n_search_boxes;
  std::vector<std::vector<SearchBox>> out(offsets.size() - 1);
  if (n == 0 || domains.empty()) return out;
  m.flag.reserve(n, "halo flags");
  m.near_boxes.reserve(n, "search boxes near a domain");
  m.select_near(BoxQuery{m.search_boxes.get()}, n, domains, offsets, box, m.search_boxes.get(),
                m.near_boxes.get(), out, "search boxes near the domains");
  return out;
}

std::vector<std::vector<uint32_t>> ResidentSph::needed_by_all(
    const std::vector<SearchBox>& boxes, const std::vector<std::size_t>& offsets,
    const Box& box) const {
  Impl& m = *impl_;
  std::vector<std::vector<uint32_t>> out(offsets.size() - 1);
  if (boxes.empty() || m.n_local == 0) return out;
  const double* reach = m.with_reach ? m.radius.get() : nullptr;
  m.select_near(PointQuery{m.local.view().pos, reach, box}, m.n_local, boxes, offsets, box,
                m.all.get(), m.selected.get(), out, "halo selection");
  return out;
}

std::size_t ResidentSph::smoothing_lengths(const Ghosts& ghosts, const Box& box, const SphParams& p,
                                           bool short_of_gas, double edge) {
  Impl& m = *impl_;
  m.with_reach = false;  // this round's selection is made: the next rounds select for h alone
  if (m.n_todo == 0) return 0;
  const std::size_t n = m.n_local + ghosts.count;
  m.next.reserve(std::max<std::size_t>(n, 1), "d_{N+1} of the smoothing lengths");
  if (!short_of_gas) {
    m.fill_work({Field::pos, Field::h, Field::nngb}, ghosts, MPSPH_HALO_FIELDS(Halo::h), m.todo(),
                m.n_todo);
    m.sph.smoothing_lengths(m.work.view(), box, p, m.set, m.next.get());
    m.sph.throw_if_errors(p.n_neighbours);
    m.local.copy_range(m.work, 0, m.n_local, 0, {Field::h, Field::nngb});
  }
  widen_kernel<<<cuda_blocks(m.n_todo, kThreads), kThreads>>>(m.todo(), m.n_todo, m.next.get(),
                                                              m.local.view().h, short_of_gas, edge,
                                                              m.radius.get(), m.flag.get());
  cuda_check_launch("widen_kernel");
  m.n_todo = m.flagged(m.todo(), m.flag.get(), m.n_todo, m.todo_lists[1 - m.current].get(),
                       "searching gas");
  m.current = 1 - m.current;
  return m.n_todo;
}

void ResidentSph::density(const Ghosts& ghosts, const Box& box, const SphParams& p,
                          const EosParams& eos) {
  Impl& m = *impl_;
  if (m.n_local == 0) return;
  m.fill_work({Field::pos, Field::vel, Field::mass, Field::h, Field::u, Field::rho, Field::divv,
               Field::curlv, Field::pressure, Field::csound, Field::balsara},
              ghosts, MPSPH_HALO_FIELDS(Halo::density), m.all.get(), m.n_local);
  m.sph.density(m.work.view(), box, p, m.set);
  m.sph.prepare_force(m.work.view(), eos, p, m.set);
  m.sph.throw_if_errors(p.n_neighbours);
  m.local.copy_range(m.work, 0, m.n_local, 0,
                     {Field::rho, Field::divv, Field::curlv, Field::pressure, Field::csound,
                      Field::balsara, Field::u});
}

void ResidentSph::forces(const Ghosts& refreshed, const Box& box, const SphParams& p) {
  Impl& m = *impl_;
  if (m.n_local == 0) return;
  if (m.work.size() != m.n_local + refreshed.count)
    throw Error("sph: the forces' ghosts are not the density's");
  m.unpack_ghosts(refreshed, MPSPH_HALO_FIELDS(Halo::refresh));
  m.sph.forces(m.work.view(), box, p, m.set);
  m.sph.throw_if_errors(p.n_neighbours);
  m.local.copy_range(m.work, 0, m.n_local, 0, {Field::acc, Field::dudt, Field::vsig});
}

}  // namespace mpsph
