// Barnes-Hut tree walk (OpenMP driver). Targets are processed in groups of consecutive
// tree-ordered particles that share one interaction list: the opening test uses the distance
// from a node to the nearest point of the group's bounding box, so the list is valid for every
// member (Barnes 1990, J. Comput. Phys. 87, 161). group_size = 1 is the classic one-particle walk.
#pragma once

#include <cstdint>

#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"
#include "gravity/octree.hpp"

namespace mpsph {

struct TreeWalkParams {
  OpeningParams opening;
  int group_size = 32;  // maximum targets sharing one interaction list
  // The group evaluation's AVX-512 copy where the CPU has it (tree_gravity_uses_avx512()); false
  // runs the baseline copy. Both give the same bits (tree_gravity.cpp; tree_gravity_test.cpp).
  bool allow_avx512 = true;
};

// Whether tree_gravity() evaluates with its AVX-512 copy on this CPU (when allowed).
bool tree_gravity_uses_avx512();

struct TreeWalkStats {
  std::size_t groups = 0;
  std::size_t node_interactions = 0;      // target-node multipole evaluations
  std::size_t particle_interactions = 0;  // target-particle pair evaluations
  // Nodes of source trees that a group's criterion would open but that were sent without their
  // children (a locally essential tree built for a larger box must never need this; the MPI
  // driver treats a non-zero count as an error).
  std::size_t closed_opened = 0;
  // GPU walks: the wall time of the longest group's walk (its warp's SM cycles at the nominal
  // clock), a lower bound of the walk's time, since one warp walks a group; 0 on the CPU.
  double longest_group_s = 0.0;
  // Targets of groups whose lists passed kMaxGroupList entries, walked alone (gravity_kern.hpp).
  std::size_t split_targets = 0;
};

// Gravitational acceleration and potential of every tree particle, written to acc[order[k]] and
// pot[order[k]] (the caller's order) with G applied. acc_old (caller's order, may be null) holds
// the previous |a| for the relative criterion; a group with any zero |a_old| uses the geometric
// criterion. `active` (caller's order, may be null = all): only particles with active[i] != 0 are
// targets (groups without one are skipped, the others are bounded by their active members); the
// tree still holds every particle as a source.
// `sources` (n_sources trees, may be null): further trees of sources only (their `order` unused),
// walked by every group after `tree` with the same criterion - the locally essential trees other
// MPI ranks send (parallel/distributed_gravity.hpp). In such a tree a node with n_child = 0 and
// begin == end carries only its moments (its children were not sent).
// `walk_cost` (caller's order, may be null): each target's interactions (its group's node and
// particle lists, itself excluded), at least 1 - the MPI decomposition's gravity cost of the
// particle (core/particle_cost.hpp).
TreeWalkStats tree_gravity(const OctreeView& tree, const TreeWalkParams& params, double G,
                           const double* acc_old, Vec3d* acc, double* pot,
                           const uint8_t* active = nullptr, const OctreeView* sources = nullptr,
                           int n_sources = 0, uint32_t* walk_cost = nullptr);

}  // namespace mpsph
