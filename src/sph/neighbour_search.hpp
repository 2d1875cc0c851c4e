// Neighbour search of the CPU SPH backend: a nanoflann kd-tree over the gas positions, and the
// symmetric pair lists that the density and force passes of one step share.
//
// Periodic boxes (nanoflann has no periodic metric): the tree holds the gas positions wrapped
// into the box plus ghost copies - images shifted by +-L along one, two or three axes - of every
// particle within `ghost_width` of a face. A query from a point inside the box therefore finds
// every periodic image within ghost_width. Search radii must stay below half the smallest box edge
// so that a particle has at most one image in range (checked; mpsph::Error otherwise).
//
// Distances that decide physics are never the tree's: callers recompute them from the store with
// min_image() in double ("canonical" distances), and tree radii are widened by kTreeRadiusSlack so
// that the tree always returns a superset of the canonical set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/vec3.hpp"
#include "sph/smoothing_length_buffers.hpp"

namespace mpsph {

class ParticleStore;

// Relative widening of tree search radii: covers the rounding of wrapped/ghost coordinates as long
// as |x| / h < ~1e9.
constexpr double kTreeRadiusSlack = 1e-6;

class SphNeighbours {
 public:
  SphNeighbours();
  ~SphNeighbours();
  SphNeighbours(SphNeighbours&&) noexcept;
  SphNeighbours& operator=(SphNeighbours&&) noexcept;

  // --- kd-tree -------------------------------------------------------------------------------
  // (Re)builds the tree over gas [0, n_gas) of `store`; ghost_width is ignored in an open box and
  // capped at half the smallest edge of a periodic one. Drops the pair lists. Sets the tree
  // points; the kd-tree index over them is built by ensure_index, at the first search that needs
  // it (a step whose candidates all come from the grouped smoothing-length search needs none).
  void build_tree(const ParticleStore& store, const Box& box, double ghost_width);
  // Builds the kd-tree index over the tree points unless it is built. Not thread-safe: call it
  // before the (thread-safe) searches nearest and within, which need it.
  void ensure_index();
  // Rebuilds the tree when its ghost layer is narrower than `width` (periodic box only). Throws
  // mpsph::Error when width reaches half the smallest box edge.
  void ensure_ghost_width(const ParticleStore& store, const Box& box, double width);
  double ghost_width() const { return ghost_width_; }
  std::size_t n_gas() const { return n_gas_; }
  // Position of gas particle i as stored in the tree (wrapped into a periodic box): the query
  // point for i's own searches.
  Vec3d tree_position(std::size_t i) const { return points_[i]; }
  // The n_gas() tree positions of the gas, in store order.
  const Vec3d* tree_points() const { return points_.data(); }

  // The k nearest tree points to x: gas indices (ghosts mapped to their particle) and tree
  // squared distances, nearest first. Returns how many were found (< k only if the tree is
  // smaller). Thread-safe; the index must be built (ensure_index; mpsph::Error otherwise).
  std::size_t nearest(const Vec3d& x, std::size_t k, uint32_t* index, double* dist2) const;
  // Gas indices of the tree points with tree distance < radius (unordered). Thread-safe; the
  // index must be built (ensure_index; mpsph::Error otherwise).
  void within(const Vec3d& x, double radius, std::vector<uint32_t>& out) const;

  // --- candidates cached by the smoothing-length stage ---------------------------------------
  // For gas i, `stride` gas indices (its nearest neighbours, or i itself as padding) that hold
  // every j with canonical r_ij < 2 covered_h[i]: all that build_pairs keeps of a tree search of
  // radius 2 h_i (1 + kTreeRadiusSlack). build_pairs filters these instead of searching the tree
  // again, for every i with store.h[i] == covered_h[i] (0: no valid list).
  // build_tree and build_pairs drop them.
  void set_candidates(std::size_t stride, std::vector<uint32_t> index,
                      std::vector<float> covered_h);
  // Hands the candidate buffers (dropped) to the caller, to be filled and given back with
  // set_candidates: they keep their size and capacity from step to step, so that refilling them
  // costs no allocation, zeroing or page faults. Their contents are unspecified.
  void take_candidate_buffers(std::vector<uint32_t>& index, std::vector<float>& covered_h);
  // The candidates as set_candidates left them: stride 0 when there are none (or they were
  // dropped); else candidates(i) holds `stride` gas indices and covered_h(i) the h they cover.
  std::size_t candidate_stride() const { return cand_stride_; }
  const uint32_t* candidates(std::size_t i) const { return cand_.data() + i * cand_stride_; }
  float covered_h(std::size_t i) const { return cand_h_[i]; }
  // Buffers of the smoothing-length stage, kept here between its calls (smoothing_length.cpp).
  SmoothingLengthBuffers& h_buffers() { return h_buffers_; }

  // --- pair lists ----------------------------------------------------------------------------
  // Builds, for every gas i, the sorted list of all gas j != i with canonical r_ij < h_i + h_j
  // (i.e. r_ij < 2 h_ij). Every such pair is listed from both sides. Uses store.h; the tree must
  // hold the current positions (it is widened here if its ghost layer is too thin).
  // With an active subset (individual time steps) only the active i get lists, still complete:
  // a j with 2 h_i <= r_ij < h_i + h_j is found from j, by a search over the active particles
  // when j is inactive.
  void build_pairs(const ParticleStore& store, const Box& box, const ActiveSet& active = {});
  bool has_pairs() const { return !offsets_.empty(); }
  // = 2 x number of pairs
  std::size_t num_pair_entries() const { return has_pairs() ? std::size_t(offsets_.back()) : 0; }
  const uint32_t* pairs_begin(std::size_t i) const { return neighbours_.data() + offsets_[i]; }
  const uint32_t* pairs_end(std::size_t i) const { return neighbours_.data() + offsets_[i + 1]; }

 private:
  void drop_candidates();
  // (active i, inactive j) with 2 h_i <= r_ij < h_i + h_j, unordered.
  std::vector<std::pair<uint32_t, uint32_t>> inactive_reverse_pairs(
      const ParticleStore& store, const Box& box, const std::vector<uint8_t>& is_active) const;

  struct Tree;
  std::unique_ptr<Tree> tree_;      // the kd-tree index (null until ensure_index)
  bool have_points_ = false;        // build_tree has run
  std::vector<Vec3d> points_;       // [0, n_gas): wrapped gas positions; then ghost images
  std::vector<uint32_t> ghost_of_;  // gas index of ghost k (tree point n_gas + k)
  std::size_t n_gas_ = 0;
  double ghost_width_ = 0.0;
  bool periodic_ = false;
  std::size_t cand_stride_ = 0;       // 0: no valid candidates (the buffers below keep their size)
  std::vector<uint32_t> cand_;        // n_gas x cand_stride_
  std::vector<float> cand_h_;         // covered_h per gas particle
  std::vector<uint64_t> offsets_;     // CSR offsets, size n_gas + 1 (empty: no pair lists)
  std::vector<uint32_t> neighbours_;  // CSR entries [0, offsets_.back()); capacity kept
  // Scratch of build_pairs, kept with its capacity between steps.
  std::vector<std::vector<uint32_t>> forward_;  // forward entries per block of particles
  std::vector<uint32_t> n_forward_, n_reverse_, reverse_fill_;
  SmoothingLengthBuffers h_buffers_;
};

}  // namespace mpsph
