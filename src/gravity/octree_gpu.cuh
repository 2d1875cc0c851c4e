// The gravity octree built on the device (CUDA-only header, used by the gravity .cu drivers).
// The same steps as Octree::build (octree.hpp), one kernel or CUB primitive each, on particles that
// never leave the device:
//   bounding cube -> Morton keys -> stable radix sort (cub::DeviceRadixSort) -> gather positions,
//   masses, softenings (and |a_old|) into tree order -> node generations top-down (child counts,
//   cub::DeviceScan, children) -> upward pass (leaf_moments / internal_moments) -> target groups.
// Each step calls the MPSPH_HD functions of octree_kern.hpp, so the node array equals the CPU's.
// The host reads back one integer per generation (the child total) to size the next one.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_scratch.hpp"
#include "core/particle_store.hpp"
#include "gravity/bounding_box_gpu.cuh"
#include "gravity/device_buffer.cuh"
#include "gravity/octree_kern.hpp"

namespace mpsph::gpu {

// Device pointers of a built tree, for the walk.
struct DeviceTreeView {
  const OctreeNode* nodes;
  int32_t n_nodes;
  TreeParticles particles;     // tree order
  const uint32_t* order;       // tree index -> caller index
  const double* acc_old;       // |a_old| in tree order (nullptr: geometric criterion only)
  const int32_t* group_begin;  // n_groups + 1 entries; group g = [group_begin[g], group_begin[g+1])
  int32_t n_groups;
  int generations;
};

// Events recorded between the stages of build() (may be null).
struct BuildEvents {
  cudaEvent_t after_sort, after_build, after_moments;
};

class DeviceOctree {
 public:
  // Builds over the n = v.n particles of the device view (pos, mass, type; acc_grav when
  // with_acc_old) with Plummer-equivalent softening eps[type]. Leaves hold <= leaf_size particles
  // unless their keys coincide; groups hold <= group_size particles.
  // `cube` (host, may be null): the key cube to use instead of the particles' bounding cube.
  void build(const ParticleView& v, const std::array<double, 6>& softening, int leaf_size,
             int group_size, bool with_acc_old, const BuildEvents& ev,
             const BoundingCube* cube = nullptr);
  // TreeUpdate::Refit: the last build's topology and groups with the particles (same device order,
  // same n) gathered again and the upward pass redone. Returns false, doing nothing, when there is
  // no build of v.n particles with these leaf and group sizes.
  bool refit(const ParticleView& v, const std::array<double, 6>& softening, int leaf_size,
             int group_size, bool with_acc_old, const BuildEvents& ev);

  DeviceTreeView view() const;
  // Device bytes held (not counting a lent scratch).
  std::size_t device_bytes() const;
  // The build's sort keys and indices and its child counts live in `scratch` from now on (null:
  // a buffer of this object's own); they are needed inside build() only. With
  // `copies_in_scratch` the tree-ordered copies of position, mass, softening and |a_old| live
  // there too: they are then valid only until the scratch is lent again (view() checks), and
  // refit() refuses (the caller rebuilds) - for callers that rebuild the tree at every call
  // (the global time-step scheme).
  void set_scratch(DeviceScratch* scratch, bool copies_in_scratch = false) {
    scratch_ = scratch ? scratch : &own_scratch_;
    copies_in_scratch_ = scratch && copies_in_scratch;
  }
  // Nodes of the last build, and the room held for them.
  std::size_t node_count() const { return std::size_t(n_nodes_); }
  std::size_t node_capacity() const { return nodes_.capacity(); }
  void download(std::vector<OctreeNode>& nodes, std::vector<uint32_t>& order) const;

 private:
  void sort_and_gather(const ParticleView& v, const std::array<double, 6>& softening,
                       bool with_acc_old, const BoundingCube* cube);
  void build_nodes(int leaf_size);
  void upward_pass();
  void make_groups(int group_size);
  void* cub_temp(std::size_t bytes);

  std::size_t n_ = 0;
  int leaf_size_ = 0, group_size_ = 0;  // of the last build
  bool have_acc_old_ = false;
  DeviceBuffer<BoundingCube> cube_;
  DeviceBuffer<unsigned char> box_scratch_;
  // In the scratch during build(): the keys and indices of the sort (two of each) and the child
  // counts; the tree order (tree index -> device index) is kept in order_.
  DeviceScratch own_scratch_;
  DeviceScratch* scratch_ = &own_scratch_;
  const uint64_t* sorted_keys_ = nullptr;
  int32_t* counts_ = nullptr;  // child counts of a generation, then the group flags (n + 1)
  DeviceBuffer<uint32_t> order_;
  DeviceBuffer<Vec3d> pos_;
  DeviceBuffer<double> mass_;
  DeviceBuffer<float> eps_;
  DeviceBuffer<double> acc_old_;
  // The tree-ordered copies the build and the walk use: the buffers above, or pieces of the
  // scratch (copies_in_scratch_), valid while it is in generation copies_generation_.
  bool copies_in_scratch_ = false;
  uint64_t copies_generation_ = 0;
  Vec3d* pos_p_ = nullptr;
  double* mass_p_ = nullptr;
  float* eps_p_ = nullptr;
  double* acc_old_p_ = nullptr;
  DeviceBuffer<OctreeNode> nodes_;
  int32_t n_nodes_ = 0;
  std::vector<int32_t> gen_begin_;
  DeviceBuffer<int32_t> groups_;
  int32_t n_groups_ = 0;
  DeviceBuffer<unsigned char> temp_;  // CUB scratch
};

}  // namespace mpsph::gpu
