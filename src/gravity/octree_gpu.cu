// Device construction of the gravity octree (see octree_gpu.cuh for the steps).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <string>

#include "core/morton.hpp"
#include "gravity/octree_gpu.cuh"

namespace mpsph::gpu {

namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  return int((n + kThreads - 1) / kThreads);
}

struct TypeSoftening {
  float eps[6];
};

__global__ void keys_kernel(const Vec3d* __restrict__ pos, int32_t n,
                            const BoundingCube* __restrict__ cube, uint64_t* __restrict__ keys,
                            uint32_t* __restrict__ idx) {
  const int32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  keys[i] = morton_key(pos[i], cube->lo, cube->size);
  idx[i] = uint32_t(i);
}

// Tree-order copies: the walk reads particles in curve order, contiguous per leaf and group.
__global__ void gather_kernel(const uint32_t* __restrict__ order, int32_t n, ParticleView v,
                              TypeSoftening soft, bool with_acc_old, Vec3d* __restrict__ pos,
                              double* __restrict__ mass, float* __restrict__ eps,
                              double* __restrict__ acc_old) {
  const int32_t k = blockIdx.x * kThreads + threadIdx.x;
  if (k >= n) return;
  const uint32_t i = order[k];
  pos[k] = v.pos[i];
  mass[k] = v.mass[i];
  const unsigned t = v.type[i];
  eps[k] = t < 6 ? soft.eps[t] : 0.0f;
  if (with_acc_old) acc_old[k] = norm(v.acc_grav[i]);
}

__global__ void init_root_kernel(OctreeNode* nodes, int32_t n) {
  OctreeNode root{};
  root.begin = 0;
  root.end = n;
  nodes[0] = root;
}

// counts[i - gb] = number of children of node i (0 for a leaf); counts[ge - gb] = 0 so that the
// exclusive scan leaves the generation's total there.
__global__ void count_children_kernel(const OctreeNode* __restrict__ nodes,
                                      const uint64_t* __restrict__ keys, int32_t gb, int32_t ge,
                                      int leaf_size, int32_t* __restrict__ counts) {
  const int32_t i = gb + int32_t(blockIdx.x * kThreads + threadIdx.x);
  if (i > ge) return;
  if (i == ge) {
    counts[ge - gb] = 0;
    return;
  }
  const int level = node_split_level(keys, nodes[i].begin, nodes[i].end, leaf_size);
  int32_t c = 0;
  if (level >= 0) {
    int32_t bounds[9];
    octant_bounds(keys, nodes[i].begin, nodes[i].end, level, bounds);
    c = count_children(bounds);
  }
  counts[i - gb] = c;
}

// Links each node of the generation to its children and writes them (Octree::build_nodes).
__global__ void write_children_kernel(OctreeNode* __restrict__ nodes,
                                      const uint64_t* __restrict__ keys, int32_t gb, int32_t ge,
                                      int leaf_size, const int32_t* __restrict__ offsets) {
  const int32_t i = gb + int32_t(blockIdx.x * kThreads + threadIdx.x);
  if (i >= ge) return;
  OctreeNode& node = nodes[i];
  node.child_begin = ge + offsets[i - gb];
  node.n_child = offsets[i - gb + 1] - offsets[i - gb];
  if (node.n_child == 0) return;
  int32_t bounds[9];
  octant_bounds(keys, node.begin, node.end, node_split_level(keys, node.begin, node.end, leaf_size),
                bounds);
  int32_t c = node.child_begin;
  for (int k = 0; k < 8; ++k) {
    if (bounds[k + 1] == bounds[k]) continue;
    OctreeNode child{};
    child.begin = bounds[k];
    child.end = bounds[k + 1];
    nodes[c++] = child;
  }
}

__global__ void moments_kernel(OctreeNode* __restrict__ nodes, TreeParticles p, int32_t gb,
                               int32_t ge) {
  const int32_t i = gb + int32_t(blockIdx.x * kThreads + threadIdx.x);
  if (i >= ge) return;
  if (nodes[i].n_child == 0) {
    leaf_moments(nodes[i], p);
  } else {
    internal_moments(nodes[i], nodes);
  }
}

// Group starts (tree_gravity.cpp, make_groups): a node with <= group_size particles whose parent
// has more is a group (so is the root if small enough); a leaf with more is cut into chunks.
__global__ void mark_groups_kernel(const OctreeNode* __restrict__ nodes, int32_t n_nodes,
                                   int group_size, int32_t* __restrict__ flags) {
  const int32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= n_nodes) return;
  const OctreeNode& n = nodes[i];
  const int32_t count = n.end - n.begin;
  if (count <= group_size) {
    if (i == 0) flags[n.begin] = 1;
    return;
  }
  if (n.n_child == 0) {
    for (int32_t b = n.begin; b < n.end; b += group_size) flags[b] = 1;
    return;
  }
  for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) {
    if (nodes[c].end - nodes[c].begin <= group_size) flags[nodes[c].begin] = 1;
  }
}

// After the exclusive scan of the flags: particle i starts group scan[i] when the scan steps.
__global__ void scatter_groups_kernel(const int32_t* __restrict__ scan, int32_t n,
                                      int32_t* __restrict__ group_begin) {
  const int32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    group_begin[scan[n]] = n;
  } else if (scan[i + 1] != scan[i]) {
    group_begin[scan[i]] = i;
  }
}

int32_t read_int(const int32_t* d, const char* what) {
  int32_t h = 0;
  cuda_check(cudaMemcpy(&h, d, sizeof(int32_t), cudaMemcpyDeviceToHost), what);
  return h;
}

}  // namespace

void* DeviceOctree::cub_temp(std::size_t bytes) {
  temp_.reserve(bytes, "CUB scratch");
  return temp_.get();
}

void DeviceOctree::build(const ParticleView& v, const std::array<double, 6>& softening,
                         int leaf_size, int group_size, bool with_acc_old, const BuildEvents& ev,
                         const BoundingCube* cube) {
  if (v.n >= std::size_t(std::numeric_limits<int32_t>::max())) {
    throw Error("GPU gravity octree: " + std::to_string(v.n) + " particles exceed the 2^31 limit");
  }
  if (leaf_size < 1) {
    throw Error("GPU gravity octree: leaf_size must be >= 1, got " + std::to_string(leaf_size));
  }
  n_ = v.n;
  n_nodes_ = 0;
  n_groups_ = 0;
  leaf_size_ = leaf_size;
  group_size_ = group_size;
  gen_begin_.assign(1, 0);
  sort_and_gather(v, softening, with_acc_old, cube);
  if (ev.after_sort) cuda_check(cudaEventRecord(ev.after_sort), "recording an event");
  if (n_ > 0) {
    build_nodes(leaf_size);
    make_groups(group_size);
  }
  if (ev.after_build) cuda_check(cudaEventRecord(ev.after_build), "recording an event");
  if (n_ > 0) upward_pass();
  if (ev.after_moments) cuda_check(cudaEventRecord(ev.after_moments), "recording an event");
}

bool DeviceOctree::refit(const ParticleView& v, const std::array<double, 6>& softening,
                         int leaf_size, int group_size, bool with_acc_old, const BuildEvents& ev) {
  if (n_ == 0 || v.n != n_ || n_nodes_ == 0 || leaf_size != leaf_size_ ||
      group_size != group_size_ || copies_in_scratch_)
    return false;
  if (with_acc_old) acc_old_.reserve(n_, "tree-order |a_old|");
  acc_old_p_ = acc_old_.get();
  have_acc_old_ = with_acc_old;
  TypeSoftening soft;
  for (int t = 0; t < 6; ++t) soft.eps[t] = float(softening[t]);
  gather_kernel<<<blocks_for(n_), kThreads>>>(order_.get(), int32_t(n_), v, soft, with_acc_old,
                                              pos_p_, mass_p_, eps_p_, acc_old_p_);
  cuda_check_launch("gather into tree order");
  if (ev.after_sort) cuda_check(cudaEventRecord(ev.after_sort), "recording an event");
  if (ev.after_build) cuda_check(cudaEventRecord(ev.after_build), "recording an event");
  upward_pass();
  if (ev.after_moments) cuda_check(cudaEventRecord(ev.after_moments), "recording an event");
  return true;
}

void DeviceOctree::sort_and_gather(const ParticleView& v, const std::array<double, 6>& softening,
                                   bool with_acc_old, const BoundingCube* cube) {
  const int32_t n = int32_t(n_);
  cube_.reserve(1, "bounding cube");
  box_scratch_.reserve(bounding_cube_scratch_bytes(), "bounding box scratch");
  order_.reserve(n_, "tree order");
  using S = DeviceScratch;
  const std::size_t k_at = 0, k_alt = S::align(n_ * sizeof(uint64_t)),
                    i_at = 2 * S::align(n_ * sizeof(uint64_t)),
                    i_alt = i_at + S::align(n_ * sizeof(uint32_t)),
                    c_at = i_alt + S::align(n_ * sizeof(uint32_t)),
                    p_at = c_at + S::align((n_ + 1) * sizeof(int32_t)),
                    m_at = p_at + S::align(n_ * sizeof(Vec3d)),
                    e_at = m_at + S::align(n_ * sizeof(double)),
                    a_at = e_at + S::align(n_ * sizeof(float)),
                    end = copies_in_scratch_ ? a_at + S::align(n_ * sizeof(double)) : p_at;
  char* base = static_cast<char*>(scratch_->acquire(end, "the gravity tree's sort"));
  counts_ = reinterpret_cast<int32_t*>(base + c_at);
  if (copies_in_scratch_) {
    pos_p_ = reinterpret_cast<Vec3d*>(base + p_at);
    mass_p_ = reinterpret_cast<double*>(base + m_at);
    eps_p_ = reinterpret_cast<float*>(base + e_at);
    acc_old_p_ = reinterpret_cast<double*>(base + a_at);
    copies_generation_ = scratch_->generation();
  } else {
    pos_.reserve(n_, "tree-order positions");
    mass_.reserve(n_, "tree-order masses");
    eps_.reserve(n_, "tree-order softenings");
    if (with_acc_old) acc_old_.reserve(n_, "tree-order |a_old|");
    pos_p_ = pos_.get(), mass_p_ = mass_.get(), eps_p_ = eps_.get(), acc_old_p_ = acc_old_.get();
  }
  have_acc_old_ = with_acc_old;
  if (n == 0) return;

  if (cube) {
    cuda_check(cudaMemcpy(cube_.get(), cube, sizeof(BoundingCube), cudaMemcpyHostToDevice),
               "uploading the key cube");
  } else {
    bounding_cube(v.pos, n_, cube_.get(), box_scratch_.get());
  }
  uint64_t* keys0 = reinterpret_cast<uint64_t*>(base + k_at);
  uint32_t* idx0 = reinterpret_cast<uint32_t*>(base + i_at);
  keys_kernel<<<blocks_for(n_), kThreads>>>(v.pos, n, cube_.get(), keys0, idx0);
  cuda_check_launch("Morton keys");

  // Stable LSD radix sort over the 63 key bits: equal keys keep index order, as on the CPU.
  cub::DoubleBuffer<uint64_t> keys(keys0, reinterpret_cast<uint64_t*>(base + k_alt));
  cub::DoubleBuffer<uint32_t> vals(idx0, reinterpret_cast<uint32_t*>(base + i_alt));
  std::size_t bytes = 0;
  cuda_check(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, n, 0, 3 * kMortonBitsPerAxis),
      "radix sort (size query)");
  cuda_check(cub::DeviceRadixSort::SortPairs(cub_temp(bytes), bytes, keys, vals, n, 0,
                                             3 * kMortonBitsPerAxis),
             "radix sort of the Morton keys");
  sorted_keys_ = keys.Current();
  cuda_check(cudaMemcpyAsync(order_.get(), vals.Current(), n_ * sizeof(uint32_t),
                             cudaMemcpyDeviceToDevice),
             "keeping the tree order");

  TypeSoftening soft;
  for (int t = 0; t < 6; ++t) soft.eps[t] = float(softening[t]);
  gather_kernel<<<blocks_for(n_), kThreads>>>(order_.get(), n, v, soft, with_acc_old, pos_p_,
                                              mass_p_, eps_p_, acc_old_p_);
  cuda_check_launch("gather into tree order");
}

void DeviceOctree::build_nodes(int leaf_size) {
  // A compressed octree has fewer nodes than 2n; with leaves of 32 it has ~n/8 (Evrard 1e7:
  // n/7.6, docs/PERFORMANCE.md): start from n/8 and grow by a quarter on demand (the capacity is
  // kept for the next builds).
  nodes_.reserve(std::max<std::size_t>(1024, n_ / 8), "octree nodes");
  init_root_kernel<<<1, 1>>>(nodes_.get(), int32_t(n_));
  cuda_check_launch("octree root");
  gen_begin_.assign({0, 1});
  for (;;) {
    const int32_t gb = gen_begin_[gen_begin_.size() - 2], ge = gen_begin_.back();
    const int32_t m = ge - gb;
    count_children_kernel<<<blocks_for(std::size_t(m) + 1), kThreads>>>(nodes_.get(), sorted_keys_,
                                                                        gb, ge, leaf_size, counts_);
    cuda_check_launch("octree child counts");
    std::size_t bytes = 0;
    cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts_, counts_, m + 1),
               "child-count scan (size query)");
    cuda_check(cub::DeviceScan::ExclusiveSum(cub_temp(bytes), bytes, counts_, counts_, m + 1),
               "child-count scan");
    const int32_t total = read_int(counts_ + m, "reading the generation size");
    if (total == 0) break;
    const std::size_t need = std::size_t(ge) + std::size_t(total);
    if (need > nodes_.capacity()) {
      nodes_.reserve(std::max(need, nodes_.capacity() + nodes_.capacity() / 4), "octree nodes",
                     std::size_t(ge));
    }
    write_children_kernel<<<blocks_for(std::size_t(m)), kThreads>>>(nodes_.get(), sorted_keys_, gb,
                                                                    ge, leaf_size, counts_);
    cuda_check_launch("octree children");
    gen_begin_.push_back(ge + total);
  }
  n_nodes_ = gen_begin_.back();
}

void DeviceOctree::upward_pass() {
  const TreeParticles p{pos_p_, mass_p_, eps_p_, int32_t(n_)};
  for (int g = int(gen_begin_.size()) - 2; g >= 0; --g) {
    const int32_t gb = gen_begin_[g], ge = gen_begin_[g + 1];
    moments_kernel<<<blocks_for(std::size_t(ge - gb)), kThreads>>>(nodes_.get(), p, gb, ge);
    cuda_check_launch("octree moments");
  }
}

void DeviceOctree::make_groups(int group_size) {
  const int32_t n = int32_t(n_);
  int32_t* flags = counts_;  // n + 1 entries; the child counts are no longer needed
  cuda_check(cudaMemset(flags, 0, (n_ + 1) * sizeof(int32_t)), "clearing group flags");
  mark_groups_kernel<<<blocks_for(std::size_t(n_nodes_)), kThreads>>>(nodes_.get(), n_nodes_,
                                                                      group_size, flags);
  cuda_check_launch("group starts");
  std::size_t bytes = 0;
  cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, flags, flags, n + 1),
             "group scan (size query)");
  cuda_check(cub::DeviceScan::ExclusiveSum(cub_temp(bytes), bytes, flags, flags, n + 1),
             "group scan");
  n_groups_ = read_int(flags + n, "reading the number of groups");
  groups_.reserve(std::size_t(n_groups_) + 1, "group starts");
  scatter_groups_kernel<<<blocks_for(n_ + 1), kThreads>>>(flags, n, groups_.get());
  cuda_check_launch("group list");
}

DeviceTreeView DeviceOctree::view() const {
  if (copies_in_scratch_ && n_ > 0 && scratch_->generation() != copies_generation_)
    throw Error(
        "GPU gravity: the tree-ordered particle copies in the shared scratch were overwritten "
        "before the walk (another stage took the scratch between the build and the walk)");
  DeviceTreeView t;
  t.nodes = nodes_.get();
  t.n_nodes = n_nodes_;
  t.particles = TreeParticles{pos_p_, mass_p_, eps_p_, int32_t(n_)};
  t.order = order_.get();
  t.acc_old = have_acc_old_ ? acc_old_p_ : nullptr;
  t.group_begin = groups_.get();
  t.n_groups = n_groups_;
  t.generations = int(gen_begin_.size()) - 1;
  return t;
}

std::size_t DeviceOctree::device_bytes() const {
  return cube_.bytes() + box_scratch_.bytes() + order_.bytes() + pos_.bytes() + mass_.bytes() +
         eps_.bytes() + acc_old_.bytes() + nodes_.bytes() + groups_.bytes() + temp_.bytes() +
         own_scratch_.bytes();
}

void DeviceOctree::download(std::vector<OctreeNode>& nodes, std::vector<uint32_t>& order) const {
  nodes.resize(std::size_t(n_nodes_));
  order.resize(n_);
  if (n_nodes_ > 0) {
    cuda_check(cudaMemcpy(nodes.data(), nodes_.get(), nodes.size() * sizeof(OctreeNode),
                          cudaMemcpyDeviceToHost),
               "downloading the octree");
  }
  if (n_ > 0) {
    cuda_check(
        cudaMemcpy(order.data(), order_.get(), n_ * sizeof(uint32_t), cudaMemcpyDeviceToHost),
        "downloading the tree order");
  }
}

}  // namespace mpsph::gpu
