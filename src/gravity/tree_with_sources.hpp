// Tree gravity of a host store's particles with the tree built in a given key cube and walked,
// after it, with further source trees: the two halves of the gravity of an MPI rank
// (parallel/distributed_gravity.hpp), which selects and exchanges the locally essential trees
// between them. On the CPU: Octree and tree_gravity; on the GPU: GpuGravity (build_in_cube,
// download_tree, walk_with_sources) on a device copy of the particles. The tree equals the CPU's
// on the same input (gravity_gpu.hpp), so both give the same locally essential trees.
#pragma once

#include <array>
#include <memory>

#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "gravity/let_kern.hpp"
#include "gravity/octree.hpp"
#include "gravity/tree_gravity.hpp"

namespace mpsph {

class DeviceParticles;
class DeviceScratch;

class TreeWithSources {
 public:
  virtual ~TreeWithSources() = default;
  virtual const char* name() const = 0;
  // Builds the octree of every particle of `s` (softening p.softening[type], p.leaf_size) with
  // the Morton keys in [cube_lo, cube_lo + cube_size)^3, and returns it as a host view (valid
  // until the next build). `relative`: the walk will use |acc_grav| of `s` as |a_old| (it is
  // read now). `update` Refit: the last build's topology with the particles (the same ones in the
  // same store order) at their current positions, when the backend can (the CPU's: Octree::refit;
  // the cube is then the last build's); otherwise a build.
  virtual OctreeView build(const ParticleStore& s, const GravityParams& p, const Vec3d& cube_lo,
                           double cube_size, bool relative,
                           TreeUpdate update = TreeUpdate::Rebuild) = 0;
  // Writes acc_grav and pot of every particle of `s` (G applied) from the tree of the last build
  // and the `n_sources` source trees (tree_gravity's `sources`), walked with p's criterion.
  // `acc_old` (caller order; null: geometric criterion) is |acc_grav| as build() read it.
  // `active` (caller order; null: all): only the particles with active[i] != 0 get new values
  // (block time steps); the others keep theirs (the GPU's walk computes every particle and keeps
  // the active ones' values).
  // Whether walk() visits only the active particles' groups (the CPU's); the GPU's walks every
  // group and keeps the active particles' values, so the sources must serve every group.
  virtual bool walks_subsets() const = 0;
  virtual TreeWalkStats walk(ParticleStore& s, const GravityParams& p, double G,
                             const double* acc_old, const OctreeView* sources, int n_sources,
                             const uint8_t* active = nullptr) = 0;

  // The bounding box of the particles of `s` (lo > hi: none), for the ranks' key cube: from the
  // host store, or where the backend keeps the particles.
  virtual void bounds(const ParticleStore& s, Vec3d& lo, Vec3d& hi) const;
  // Whether the backend selects the locally essential trees itself, where its tree lives (the
  // GPU's: gravity/let_gpu.hpp); build()'s view then holds no host copy of the tree and the
  // caller (parallel/distributed_gravity.hpp) asks for the two below instead of selecting them.
  virtual bool selects_lets() const { return false; }
  // With selects_lets(), after build(): the target boxes of the tree (at most max_boxes; every
  // particle a target), and the LET for another rank's boxes, appended.
  virtual std::vector<LetBox> let_target_boxes(int group_size, double G, std::size_t max_boxes);
  virtual void append_let(const std::vector<LetBox>& boxes, const OpeningParams& op, bool relative,
                          std::vector<OctreeNode>& nodes, std::vector<LetParticle>& parts);

  // Whether the LETs can travel GPU to GPU (the device-resident tree): the caller then has them
  // appended as messages in device memory (let_kern.hpp's LetCounts; the first of a step empties
  // the buffer), sends let_messages() to the other ranks' GPUs, and walks with the received ones.
  // tree_generations() bounds the generations of every LET of the last build.
  virtual bool sends_lets_on_device() const { return false; }
  // Device memory the backend holds of its own (the device-resident tree): the solver (octree,
  // sort buffers, tree-ordered copies, walk stacks, received sources), and the LET selection's
  // buffers and messages.
  virtual std::size_t device_bytes() const { return 0; }
  virtual std::size_t let_device_bytes() const { return 0; }
  virtual LetCounts append_let_message(const std::vector<LetBox>& boxes, const OpeningParams& op,
                                       bool relative, bool first);
  virtual const unsigned char* let_messages() const;
  virtual int tree_generations() const;
  // acc_grav and pot of every particle with the received messages at received + offsets[k]
  // (counts[k] each) as source trees; `generations`: the largest tree_generations() of theirs.
  virtual TreeWalkStats walk_device_sources(const GravityParams& p, double G,
                                            const unsigned char* received,
                                            const std::vector<std::size_t>& offsets,
                                            const std::vector<LetCounts>& counts, int generations);
};

std::unique_ptr<TreeWithSources> make_cpu_tree_with_sources();
// Defined in CUDA builds; a CPU-only build throws mpsph::Error saying so. Uses the current CUDA
// device.
std::unique_ptr<TreeWithSources> make_gpu_tree_with_sources();
// The tree of a device-resident MPI rank (run/gpu_ranks.hpp): its particles are `local` itself;
// the host store that build() and walk() are given only states their count. The bounds, the
// target boxes and the LETs are computed on the device (selects_lets(), gravity/let_gpu.hpp),
// |a_old| is `local`'s acc_grav there. walk() writes acc_grav and pot of `local` only, on the
// device, for every particle (no subset: global time steps). Defined in CUDA builds; a CPU-only
// build throws mpsph::Error saying so.
// `scratch` (null: the solver's own): the backend's shared scratch, lent to the tree's build and
// its tree-ordered copies (the resident ranks rebuild at every step; the LET selection reads the
// copies between the build and the walk, when no other stage acquires the scratch).
std::unique_ptr<TreeWithSources> make_resident_gpu_tree_with_sources(
    DeviceParticles& local, DeviceScratch* scratch = nullptr);

}  // namespace mpsph
