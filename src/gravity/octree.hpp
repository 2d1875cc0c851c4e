// Gravity octree over Morton-sorted particles (DESIGN.md section 2, "order + trees").
//
// Build, in steps that each map to one GPU kernel (or a CUB primitive) later:
//   1. bounding cube of all positions (reduction);
//   2. 63-bit Morton key per particle (core/morton.hpp) and a key sort carrying the particle
//      index (LSD radix sort here, cub::DeviceRadixSort on the GPU);
//   3. gather positions, masses and softenings into tree order;
//   4. top-down, one generation at a time: every node of the current generation finds its split
//      level and octant boundaries by binary search on the sorted keys (octree_kern.hpp), the
//      child counts are exclusive-scanned into child_begin, and the children are written as the
//      next generation - a flat breadth-first array, children of a node contiguous;
//   5. upward pass, deepest generation first: leaves from their particles, internal nodes from
//      their children (mass, centre of mass, quadrupole, bounding box, softening maxima).
// The store is never reordered: order() maps tree index -> caller's index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gravity/octree_kern.hpp"

namespace mpsph {

// Read-only view of a built tree for the walk (host pointers here; device pointers on the GPU).
struct OctreeView {
  const OctreeNode* nodes;
  int32_t n_nodes;
  TreeParticles particles;  // in tree order
  const uint32_t* order;    // tree index -> caller's index
};

class Octree {
 public:
  // Builds the tree over n particles given in the caller's order (leaves hold <= leaf_size
  // particles unless their keys coincide). Throws mpsph::Error for n >= 2^31 or leaf_size < 1.
  // cube_size > 0: the Morton keys are computed in the given cube [cube_lo, cube_lo + size)^3,
  // which must contain every particle (MPI ranks use the run's common cube, so that their nodes
  // are cells of the one-process tree); otherwise in the particles' own bounding cube.
  void build(const Vec3d* pos, const double* mass, const float* eps, std::size_t n, int leaf_size,
             const Vec3d& cube_lo = {0, 0, 0}, double cube_size = 0.0);
  // The last build's topology with the particles (same caller order, same n) at their current
  // positions: gathers them again and redoes the upward pass (TreeUpdate::Refit). Returns false,
  // doing nothing, when there is no build of n particles with this leaf_size to refit.
  bool refit(const Vec3d* pos, const double* mass, const float* eps, std::size_t n, int leaf_size);

  OctreeView view() const;
  const std::vector<OctreeNode>& nodes() const { return nodes_; }
  const std::vector<uint32_t>& order() const { return order_; }
  const std::vector<uint64_t>& keys() const { return keys_; }  // sorted, tree order
  std::size_t size() const { return pos_.size(); }
  int generations() const { return int(gen_begin_.size()) - 1; }
  // Nodes of generation g (0 = root) are [generation_begin(g), generation_begin(g + 1)).
  int32_t generation_begin(int g) const { return gen_begin_[g]; }
  // The bounding cube used for the keys.
  const Vec3d& cube_lo() const { return cube_lo_; }
  double cube_size() const { return cube_size_; }

 private:
  void compute_keys(const Vec3d* pos, std::size_t n, const Vec3d& cube_lo, double cube_size);
  void sort_keys();
  void build_nodes(int leaf_size);
  void upward_pass();
  // pos_, mass_, eps_ (tree order) from the caller's arrays through order_.
  void gather(const Vec3d* pos, const double* mass, const float* eps);

  Vec3d cube_lo_{0, 0, 0};
  double cube_size_ = 0.0;
  std::vector<uint64_t> keys_, keys_tmp_;
  std::vector<uint32_t> order_, order_tmp_;
  std::vector<Vec3d> pos_;
  std::vector<double> mass_;
  std::vector<float> eps_;
  std::vector<OctreeNode> nodes_;
  std::vector<int32_t> gen_begin_;
  std::vector<int32_t> child_count_;
  int leaf_size_ = 0;  // of the last build
};

}  // namespace mpsph
