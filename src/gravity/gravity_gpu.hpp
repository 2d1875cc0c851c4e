// Self-gravity on the GPU (host API; plain C++, no CUDA types). The CUDA drivers
// (octree_gpu.cu, tree_gravity_gpu.cu, direct_gravity_gpu.cu) call the same MPSPH_HD functions as
// the OpenMP drivers: Morton keys (core/morton.hpp), node construction and moments
// (octree_kern.hpp), opening criteria and interactions (gravity_kern.hpp).
//
// Tree: bounding cube -> Morton keys -> CUB radix sort (stable, so the order is the CPU's) ->
// gather into tree order -> top-down node generations -> upward pass (monopole, quadrupole,
// bounding boxes) -> target groups (the CPU's: largest nodes with <= group_size particles) ->
// one warp per group walks the tree and evaluates the interaction lists from shared memory.
// The tree, the groups and the opening decisions are those of the CPU tree on the same input, so
// the two backends agree to float rounding (see docs/gpu.md for the bound and its one caveat).
//
// Defined only in CUDA builds; code that calls it is itself guarded by MPSPH_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/active_set.hpp"
#include "core/device_scratch.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "gravity/let_kern.hpp"
#include "gravity/octree_kern.hpp"
#include "gravity/tree_gravity.hpp"

namespace mpsph {

// GPU time of the stages of the last compute() (CUDA events), milliseconds.
struct GpuGravityTimings {
  double keys_sort_ms = 0.0;  // bounding cube, keys, radix sort, gather into tree order
  double build_ms = 0.0;      // node generations and target groups
  double moments_ms = 0.0;    // upward pass
  double walk_ms = 0.0;       // tree walk, or the direct sum for gravity.method = direct
  double total_ms() const { return keys_sort_ms + build_ms + moments_ms + walk_ms; }
};

class GpuDirectGravity;

// Further source trees for GpuGravity::walk_with_sources (host arrays): the locally essential
// trees of other MPI ranks (parallel/distributed_gravity.hpp), concatenated - child_begin and
// begin/end index these arrays - with the index of each tree's root. A node with n_child = 0 and
// begin == end carries only its moments (its children were not sent).
struct SourceForest {
  std::vector<OctreeNode> nodes;
  std::vector<int32_t> roots;
  std::vector<Vec3d> pos;
  std::vector<double> mass;
  std::vector<float> eps;
  int generations = 0;  // node generations of the deepest tree (sizes the walk's stacks)
};

class GpuGravity {
 public:
  GpuGravity();
  ~GpuGravity();
  GpuGravity(const GpuGravity&) = delete;
  GpuGravity& operator=(const GpuGravity&) = delete;

  // Writes acc_grav and pot (G applied, self-interaction excluded) for all particles of the
  // device store, with softening p.softening[type]. The device arrays may be in any order and are
  // not reordered; the solver keeps its own tree-ordered copies. p.method = direct runs the direct
  // kernel (with j-splitting). The relative criterion uses |acc_grav| on entry as |a_old| from the
  // second call on (the CPU solver's rule). Throws mpsph::Error on CUDA errors and for
  // p.group_size > 64 (one warp holds at most two targets per lane).
  // With an active set (individual time steps) the tree is built from every particle and walked
  // for the groups with active members, whose geometry is that of their active members (as the
  // CPU solver); only the active particles' acc_grav and pot are written.
  // `update`: TreeUpdate::Refit keeps the last build's topology (the device arrays must be in the
  // order of that build); Rebuild (the default) builds the tree anew.
  void compute(const ParticleView& device_view, const GravityParams& p, double G,
               const ActiveSet& active = ActiveSet{}, TreeUpdate update = TreeUpdate::Rebuild);
  // acc_grav on the device is a previous evaluation's (a restart): the next call may use the
  // relative criterion at once.
  void assume_previous();

  // MPI ranks (parallel/distributed_gravity.hpp), in two calls: build_in_cube() builds the tree of
  // compute() with the Morton keys in the given cube [cube_lo, cube_lo + cube_size)^3, which must
  // hold every particle (the ranks' common cube, so that the nodes are cells of the one-process
  // tree; the nodes equal those of Octree::build in that cube), with |acc_grav| as |a_old| when
  // `relative`; download_tree() gives it to the host; walk_with_sources() then walks it for every
  // particle and, after it, the source trees with the same criterion (tree_gravity's `sources`),
  // and writes acc_grav and pot. Its stats count in closed_opened the source nodes without
  // children that a group would have opened.
  void build_in_cube(const ParticleView& device_view, const GravityParams& p, bool relative,
                     const Vec3d& cube_lo, double cube_size);
  TreeWalkStats walk_with_sources(const ParticleView& device_view, const GravityParams& p, double G,
                                  const SourceForest& sources);
  // The same with the source trees as LET messages in device memory (let_kern.hpp: source k's
  // `counts[k]` nodes and particles at data + offsets[k]), as the device-resident ranks receive
  // them GPU to GPU; `generations` bounds the node generations of every source tree.
  struct DeviceSourceMessages {
    const unsigned char* data = nullptr;
    std::vector<std::size_t> offsets;
    std::vector<LetCounts> counts;
    int generations = 0;
  };
  TreeWalkStats walk_with_device_sources(const ParticleView& device_view, const GravityParams& p,
                                         double G, const DeviceSourceMessages& sources);

  std::size_t device_bytes() const;  // device memory held by the solver (not a lent scratch)
  // The tree build's sort buffers live in `scratch` from now on (null: the solver's own); the
  // lender may use it for other stages between gravity calls. `copies_in_scratch`: the
  // tree-ordered particle copies too, for a caller that never asks for TreeUpdate::Refit (the
  // global scheme rebuilds the tree at every step; a refit then rebuilds).
  void set_scratch(DeviceScratch* scratch, bool copies_in_scratch = false);
  // Octree nodes of the last build and the room held for them (memory reports).
  std::size_t tree_nodes() const;
  std::size_t tree_node_capacity() const;
  GpuGravityTimings last_timings() const;
  const TreeWalkStats& last_walk_stats() const;  // interaction counts (CPU definition)

  // The last build's tree on the device, for kernels of the caller's (the device-resident MPI
  // ranks' selection of locally essential trees, gravity/let_gpu.hpp): nodes (generation order:
  // every child after its parent), the particles in tree order, and |a_old| in tree order (null
  // without the relative criterion). Device pointers, valid until the next build.
  struct DeviceTree {
    const OctreeNode* nodes;
    int32_t n_nodes;
    TreeParticles particles;
    const double* acc_old;
    int generations;
  };
  DeviceTree device_tree() const;

  // Copies the last tree to the host (tests and diagnostics): nodes in the CPU layout and the
  // tree index -> caller index map.
  void download_tree(std::vector<OctreeNode>& nodes, std::vector<uint32_t>& order) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Direct summation on the GPU with buffers kept between calls. i-particles sit in registers
// (four per thread), j-tiles in shared memory; with j_split the j-range is divided among blocks so
// that small N still fills the GPU, and the partial sums are reduced on the GPU in a fixed order.
class GpuDirectGravity {
 public:
  GpuDirectGravity();
  ~GpuDirectGravity();
  GpuDirectGravity(const GpuDirectGravity&) = delete;
  GpuDirectGravity& operator=(const GpuDirectGravity&) = delete;

  // acc_grav and pot of all particles (G applied), softening p.softening[type], kernel p.kernel;
  // with an active set, the sums of every particle are formed (the same work) and those of the
  // active ones written.
  void compute(const ParticleView& device_view, const GravityParams& p, double G, bool j_split,
               const ActiveSet& active = ActiveSet{});
  std::size_t device_bytes() const;
  double last_kernel_ms() const;  // the pair kernel (and the split reduction), CUDA events
  int last_splits() const;        // number of j-ranges used by the last call

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot direct summation (allocates its scratch for the call).
void direct_gravity_gpu(const ParticleView& device_view, const GravityParams& p, double G,
                        bool j_split);

// Accuracy reference: the direct sum entirely in double on the GPU for targets [first, last),
// written to host arrays acc[0 .. last-first) and pot[...] (G applied).
void direct_gravity_double_gpu(const ParticleView& device_view, const GravityParams& p, double G,
                               std::size_t first, std::size_t last, Vec3d* acc, double* pot);

}  // namespace mpsph
