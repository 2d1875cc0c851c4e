// The search boxes of the SPH halos across MPI ranks (parallel/sph_halo.hpp) and the halo rule's
// distance test, shared by the host's selection and the device-resident GPU ranks'
// (sph/halo_gpu.hpp): one rule, so both send the same ghosts.
#pragma once

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct SearchBox {
  Vec3d lo, hi;   // bounding box of the group's (wrapped) positions
  double radius;  // largest search radius (or reach) of the group
};

namespace detail {
// Gap between the intervals [a0, a1] and [b0, b1]; periodic with length len > 0: the smallest
// gap over the images b + k len, k = -1, 0, 1 (both intervals lie in the box after wrapping).
MPSPH_HD double interval_gap(double a0, double a1, double b0, double b1, bool periodic,
                             double len) {
  auto one = [&](double s) {
    const double g = b0 + s - a1 > a0 - (b1 + s) ? b0 + s - a1 : a0 - (b1 + s);
    return g > 0.0 ? g : 0.0;
  };
  double g = one(0.0);
  if (periodic) {
    const double up = one(len), down = one(-len);
    g = up < g ? up : g;
    g = down < g ? down : g;
  }
  return g;
}
}  // namespace detail

// Whether the boxes [a_lo, a_hi] and [b_lo, b_hi] are within distance t of each other,
// t2 = t * t (a point: a_lo = a_hi; periodic boxes: nearest images), axis by axis with an early
// exit and without a square root (the halo rule's slack covers the rounding).
MPSPH_HD bool boxes_within(const Vec3d& a_lo, const Vec3d& a_hi, const Vec3d& b_lo,
                           const Vec3d& b_hi, double t2, const Box& box) {
  const double gx = detail::interval_gap(a_lo.x, a_hi.x, b_lo.x, b_hi.x, box.periodic, box.size.x);
  double d2 = gx * gx;
  if (d2 > t2) return false;
  const double gy = detail::interval_gap(a_lo.y, a_hi.y, b_lo.y, b_hi.y, box.periodic, box.size.y);
  d2 += gy * gy;
  if (d2 > t2) return false;
  const double gz = detail::interval_gap(a_lo.z, a_hi.z, b_lo.z, b_hi.z, box.periodic, box.size.z);
  return d2 + gz * gz <= t2;
}

}  // namespace mpsph
