// The GPU neighbour structure: leaf boxes, upper tree levels, optional per-leaf candidate lists,
// and the GpuSph object's buffers and error word.
#include <cuda_runtime.h>

#include <cfloat>
#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "sph/neighbour_tree_gpu.cuh"

namespace mpsph {

using gpu::kFullMask;
using gpu::kLeafSize;
using gpu::TreeNode;
using gpu::TreeView;

namespace {

// One warp per leaf: the boxes of its wrapped positions and largest h, of the leaf and of its
// groups of kSubSize lanes.
__global__ void leaf_nodes_kernel(ParticleView v, Box box, TreeNode* leaves, TreeNode* subs,
                                  int n_leaves, bool with_h) {
  const int64_t leaf = gpu::global_warp();
  if (leaf >= n_leaves) return;
  const std::size_t i = std::size_t(leaf) * kLeafSize + gpu::lane_id();
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  float hmax = 0.f;
  if (i < v.n_gas) {
    const Vec3d x = wrap_position(v.pos[i], box);
    lo[0] = hi[0] = x.x, lo[1] = hi[1] = x.y, lo[2] = hi[2] = x.z;
    if (with_h) hmax = v.h[i];
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], __shfl_xor_sync(kFullMask, lo[k], o));
      hi[k] = fmax(hi[k], __shfl_xor_sync(kFullMask, hi[k], o));
    }
    hmax = fmaxf(hmax, __shfl_xor_sync(kFullMask, hmax, o));
    if (o == gpu::kSubSize / 2 && gpu::lane_id() % gpu::kSubSize == 0) {
      // The xor butterfly over offsets < kSubSize has reduced each group of kSubSize lanes.
      TreeNode sb;
      for (int k = 0; k < 3; ++k) sb.lo[k] = lo[k], sb.hi[k] = hi[k];
      sb.hmax = hmax;
      sb.pad = 0;
      subs[std::size_t(leaf) * gpu::kSubsPerLeaf + gpu::lane_id() / gpu::kSubSize] = sb;
    }
  }
  if (gpu::lane_id() == 0) {
    TreeNode nd;
    for (int k = 0; k < 3; ++k) nd.lo[k] = lo[k], nd.hi[k] = hi[k];
    nd.hmax = hmax;
    nd.pad = 0;
    leaves[leaf] = nd;
  }
}

__global__ void merge_nodes_kernel(TreeNode* parents, const TreeNode* children, int n_parents,
                                   int n_children) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= n_parents) return;
  TreeNode p = children[2 * m];
  if (2 * m + 1 < n_children) {
    const TreeNode& c = children[2 * m + 1];
    for (int k = 0; k < 3; ++k) p.lo[k] = fmin(p.lo[k], c.lo[k]), p.hi[k] = fmax(p.hi[k], c.hi[k]);
    p.hmax = fmaxf(p.hmax, c.hmax);
  }
  parents[m] = p;
}

}  // namespace

GpuSph::Impl::Impl() {
  cuda_check(cudaMalloc(&flags, sizeof(uint32_t)), "allocation of the SPH error word");
  cuda_check(cudaMemset(flags, 0, sizeof(uint32_t)), "clearing the SPH error word");
}

GpuSph::Impl::~Impl() {
  cudaFree(nodes);
  cudaFree(subs);
  cudaFree(flags);
  cudaFree(pairs);
  cudaFree(pair_count);
}

int gpu_task_lanes(std::size_t n_gas, std::size_t n_active_gas) {
  const std::size_t leaves = (n_gas + kLeafSize - 1) / kLeafSize;
  int lanes = kLeafSize;
  while (lanes > 1 && int64_t(n_active_gas) < lanes * kGpuTaskWarps &&
         (n_active_gas + std::size_t(lanes / 2) - 1) / std::size_t(lanes / 2) <= leaves)
    lanes /= 2;
  return lanes;
}

void GpuSph::Impl::build(const ParticleView& d, const Box& box, bool with_h) {
  lists_valid = false;
  n_leaves = int((d.n_gas + kLeafSize - 1) / kLeafSize);
  if (d.n_gas >= (std::size_t(1) << 31))
    throw Error("GPU SPH: " + std::to_string(d.n_gas) +
                " gas particles exceed the 2^31 that the device neighbour search indexes");
  levels = 1;
  while (gpu::level_count(n_leaves, levels - 1) > 1) ++levels;
  std::size_t total = 0;
  for (int l = 0; l < levels; ++l) {
    offset[l] = int(total);
    total += std::size_t(gpu::level_count(n_leaves, l));
  }
  if (total > node_capacity) {
    cudaFree(nodes);
    nodes = nullptr;
    node_capacity = 0;
    cuda_check(cudaMalloc(&nodes, total * sizeof(TreeNode)), "allocation of the SPH leaf tree");
    node_capacity = total;
  }
  const std::size_t n_subs = std::size_t(n_leaves) * gpu::kSubsPerLeaf;
  if (n_subs > sub_capacity) {
    cudaFree(subs);
    subs = nullptr;
    sub_capacity = 0;
    cuda_check(cudaMalloc(&subs, n_subs * sizeof(TreeNode)), "allocation of the SPH leaf groups");
    sub_capacity = n_subs;
  }
  if (n_leaves == 0) return;
  const unsigned threads = 128;
  leaf_nodes_kernel<<<cuda_blocks(std::size_t(n_leaves) * kLeafSize, threads), threads>>>(
      d, box, nodes, subs, n_leaves, with_h);
  cuda_check_launch("leaf_nodes_kernel");
  for (int l = 1; l < levels; ++l) {
    const int np = gpu::level_count(n_leaves, l), nc = gpu::level_count(n_leaves, l - 1);
    merge_nodes_kernel<<<cuda_blocks(np, threads), threads>>>(nodes + offset[l],
                                                              nodes + offset[l - 1], np, nc);
    cuda_check_launch("merge_nodes_kernel");
  }
}

void GpuSph::Impl::reserve_lists(std::size_t tasks) {
  const std::size_t entries = tasks * 2 * gpu::kLeafListCapacity;
  const std::size_t at = DeviceScratch::align(entries * sizeof(int));
  char* base = static_cast<char*>(scratch->acquire(at + tasks * sizeof(int), "the SPH leaf lists"));
  list = reinterpret_cast<int*>(base);
  list_count = reinterpret_cast<int*>(base + at);
  lists_generation = scratch->generation();
  lists_tasks = tasks;
}

void GpuSph::Impl::reserve_pairs(std::size_t n) {
  if (n <= pairs_capacity) return;
  cudaFree(pairs);
  cudaFree(pair_count);
  pairs = nullptr;
  pair_count = nullptr;
  pairs_capacity = 0;
  cuda_check(cudaMalloc(&pairs, n * std::size_t(kGpuPairListCapacity) * sizeof(uint32_t)),
             "allocation of the SPH pair lists");
  cuda_check(cudaMalloc(&pair_count, n * sizeof(int32_t)), "allocation of the SPH pair lists");
  pairs_capacity = n;
}

void GpuSph::record_pair_lists(bool on) {
  impl_->record_pairs = on;
  if (!on) impl_->pairs_valid = false;
}

GpuPairLists GpuSph::pair_lists(const ActiveSet& a) const {
  const Impl& m = *impl_;
  GpuPairLists pl;
  if (m.pairs_valid && !a.all() && a.index == m.pairs_for.index && a.tick == m.pairs_for.tick &&
      a.n_gas == m.pairs_for.n_gas) {
    pl.j = m.pairs;
    pl.count = m.pair_count;
    pl.cap = kGpuPairListCapacity;
  }
  return pl;
}

TreeView GpuSph::Impl::view() const {
  TreeView t{};
  t.nodes = nodes;
  t.subs = use_subs ? subs : nullptr;
  t.n_leaves = n_leaves;
  t.levels = levels;
  for (int l = 0; l < levels; ++l) t.offset[l] = offset[l];
  return t;
}

gpu::TreeView GpuSph::tree_for_pairs(const ParticleView& d, const Box& box) {
  impl_->build(d, box, true);
  return impl_->view();
}

GpuSph::GpuSph() : impl_(std::make_unique<Impl>()) {}
GpuSph::~GpuSph() = default;

void GpuSph::set_mode(GpuNeighbourMode mode) {
  impl_->mode = mode;
  impl_->lists_valid = false;
}

GpuNeighbourMode GpuSph::mode() const {
  return impl_->mode;
}

void GpuSph::set_sub_boxes(bool on) {
  impl_->use_subs = on;
}

const uint32_t* GpuSph::device_error_flags() const {
  return impl_->flags;
}

void GpuSph::clear_errors() {
  cuda_check(cudaMemsetAsync(impl_->flags, 0, sizeof(uint32_t)), "clearing the SPH error word");
}

void GpuSph::throw_if_errors(int n_neighbours) {
  uint32_t f = 0;
  cuda_check(cudaMemcpy(&f, impl_->flags, sizeof f, cudaMemcpyDeviceToHost),
             "reading the SPH error word");
  if (f) {
    clear_errors();
    throw Error(describe_gpu_sph_errors(f, n_neighbours));
  }
}

std::size_t GpuSph::device_bytes() const {
  return (impl_->node_capacity + impl_->sub_capacity) * sizeof(TreeNode) +
         impl_->pairs_capacity * (std::size_t(kGpuPairListCapacity) + 1) * sizeof(uint32_t) +
         impl_->own_scratch.bytes() + sizeof(uint32_t);
}

void GpuSph::set_scratch(DeviceScratch* scratch) {
  impl_->scratch = scratch ? scratch : &impl_->own_scratch;
  impl_->lists_valid = false;
}

std::string describe_gpu_sph_errors(uint32_t flags, int n_neighbours) {
  std::string s;
  auto add = [&s](const std::string& m) { s += (s.empty() ? "" : "; ") + m; };
  if (flags & kGpuSphNeighboursBeyondHalfBox)
    add("sph: the distance to gas neighbour number " + std::to_string(n_neighbours + 1) +
        " reaches half the smallest periodic box edge: too few gas particles for "
        "sph.n_neighbours = " +
        std::to_string(n_neighbours));
  if (flags & kGpuSphSearchBeyondHalfBox)
    add("sph: neighbour search radius 2h reaches half the smallest periodic box edge: too few gas "
        "particles for sph.n_neighbours, or sph.h_min too large");
  if (flags & kGpuSphNotConverged)
    add("sph: the GPU smoothing-length search did not converge: more than " +
        std::to_string(kGpuSphGatherCapacity - n_neighbours - 1) +
        " gas particles at one distance from a particle (duplicate positions?), or non-finite "
        "positions");
  return s;
}

}  // namespace mpsph
