// Bounding boxes over runs of consecutive gas particles, for neighbour searches shared by a group
// of nearby particles (the CPU smoothing-length stage). The store order is key order after the
// order stage, so kLeaf consecutive particles are close in space: their tight box is a leaf, and
// a balanced binary tree of box unions over consecutive leaves finds the leaves near a query box.
// Periodic boxes: positions are wrapped into the box, and a query also looks at the 26 images
// shifted by +-L along one, two or three axes; a leaf is reported once per image within reach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/vec3.hpp"

namespace mpsph {

class GasBoxes {
 public:
  static constexpr std::size_t kLeaf = 16;  // particles per leaf

  // A leaf near the query and the image shift under which it is near: points p of the leaf are
  // seen at position(p) + shift(image).
  struct Hit {
    uint32_t leaf;
    uint32_t image;
  };

  // Boxes over `pos` [0, n) (wrapped into a periodic box, as SphNeighbours::tree_position).
  void build(const Vec3d* pos, std::size_t n, const Box& box);

  // Appends to `out` (cleared first) every (leaf, image) whose box, shifted, lies within `dist`
  // of the box [lo, hi] (per-axis gaps, Euclidean): a superset of the leaves holding a point
  // within dist of a point of [lo, hi].
  void leaves_near(const Vec3d& lo, const Vec3d& hi, double dist, std::vector<Hit>& out) const;

  std::size_t leaf_begin(uint32_t leaf) const { return std::size_t(leaf) * kLeaf; }
  std::size_t leaf_end(uint32_t leaf) const {
    return std::min(n_, (std::size_t(leaf) + 1) * kLeaf);
  }
  const Vec3d& leaf_lo(uint32_t leaf) const { return lo_[0][leaf]; }
  const Vec3d& leaf_hi(uint32_t leaf) const { return hi_[0][leaf]; }
  Vec3d shift(uint32_t image) const { return shifts_[image]; }
  // Positions as structure of arrays, for loops that vectorise.
  const double* x() const { return x_.data(); }
  const double* y() const { return y_.data(); }
  const double* z() const { return z_.data(); }

 private:
  std::size_t n_ = 0;
  std::vector<double> x_, y_, z_;
  std::vector<std::vector<Vec3d>> lo_, hi_;  // per level: 0 = leaves, last = the root
  std::vector<Vec3d> shifts_;                // image 0 is the unshifted box
};

}  // namespace mpsph
