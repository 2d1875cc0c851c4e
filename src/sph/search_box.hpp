// The boxes of the SPH halos across MPI ranks (parallel/sph_halo.hpp), how they are grown from
// consecutive particles, and the halo rule's distance test, shared by the host's selection and
// the device-resident GPU ranks' (sph/resident_sph_gpu.hpp): one rule, so both send the same
// ghosts.
//
// Two kinds of boxes, both runs of consecutive particles (the store is in key order) within
// aligned chunks of a list, a run ending where the next particle would make its box wider (in
// its largest extent) than `stretch` times the largest scale among them:
// - search boxes (kSearchBoxes): the searching particles, scale and radius their search radius.
//   As wide as one search radius at most, they add little to it: the halo holds the
//   neighbourhoods and not much more. Boxes of fixed groups (512 per rank before) spanned the
//   jumps of the key order and took one outlier's radius for all: a thin gas disk cut by the keys
//   sent 0.65 ghosts per local gas particle where its searchers needed ~0.1.
// - domain boxes (kDomainBoxes): every local gas particle (the candidates), coarser, scale its
//   search radius, radius its reach (0 without). Each rank sends another only its search boxes
//   that can select something there: those near one of that rank's domain boxes.
#pragma once

#include <cstddef>
#include <limits>

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

// How boxes are grown: runs within chunks of `chunk` entries, at most `stretch` scales wide.
struct BoxRule {
  unsigned chunk;
  double stretch;
};
constexpr BoxRule kSearchBoxes{32, 1.0};
constexpr BoxRule kDomainBoxes{1024, 4.0};

// One particle of a run: its (wrapped) position, scale and radius.
struct BoxPoint {
  Vec3d x;
  double scale, radius;
};

// The boxes of the runs of entries [first, end) of a list within one chunk: at(k) gives entry k's
// BoxPoint, emit(box) takes each box in order. Returns how many.
template <class At, class Emit>
MPSPH_HD unsigned grow_boxes(const At& at, std::size_t first, std::size_t end, double stretch,
                             Emit& emit) {
  unsigned n = 0;
  SearchBox b{};
  double scale = 0.0;
  for (std::size_t k = first; k < end; ++k) {
    const BoxPoint p = at(k);
    if (k > first) {
      const Vec3d lo{p.x.x < b.lo.x ? p.x.x : b.lo.x, p.x.y < b.lo.y ? p.x.y : b.lo.y,
                     p.x.z < b.lo.z ? p.x.z : b.lo.z};
      const Vec3d hi{p.x.x > b.hi.x ? p.x.x : b.hi.x, p.x.y > b.hi.y ? p.x.y : b.hi.y,
                     p.x.z > b.hi.z ? p.x.z : b.hi.z};
      const double s = p.scale > scale ? p.scale : scale;
      const double w = stretch * s;
      if (hi.x - lo.x <= w && hi.y - lo.y <= w && hi.z - lo.z <= w) {
        b.lo = lo;
        b.hi = hi;
        b.radius = p.radius > b.radius ? p.radius : b.radius;
        scale = s;
        continue;
      }
      emit(b);
      ++n;
    }
    b = SearchBox{p.x, p.x, p.radius};
    scale = p.scale;
  }
  if (end > first) {
    emit(b);
    ++n;
  }
  return n;
}

// Boxes in groups of kBoxGroup consecutive ones and those in groups of kBoxGroup again, each
// group the union of its members' bounds with their largest radius: a query out of reach of a
// group is out of reach of all its members, so a selection skips them at once.
constexpr unsigned kBoxGroup = 32;

// A box near nothing (its gap to any box is infinite), the identity of unite(): the start of a
// union and what pads a rank's run of boxes (sph/box_levels.hpp).
MPSPH_HD SearchBox empty_search_box() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return SearchBox{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0};
}

// u becomes the union of u and b: their bounds, the larger radius.
MPSPH_HD void unite(SearchBox& u, const SearchBox& b) {
  u.lo.x = b.lo.x < u.lo.x ? b.lo.x : u.lo.x;
  u.lo.y = b.lo.y < u.lo.y ? b.lo.y : u.lo.y;
  u.lo.z = b.lo.z < u.lo.z ? b.lo.z : u.lo.z;
  u.hi.x = b.hi.x > u.hi.x ? b.hi.x : u.hi.x;
  u.hi.y = b.hi.y > u.hi.y ? b.hi.y : u.hi.y;
  u.hi.z = b.hi.z > u.hi.z ? b.hi.z : u.hi.z;
  u.radius = b.radius > u.radius ? b.radius : u.radius;
}

// Whether the box [lo, hi] with radius r is within max(b.radius, r) (1 + slack) of box b.
MPSPH_HD bool box_near(const Vec3d& lo, const Vec3d& hi, double r, const SearchBox& b, double slack,
                       const Box& box) {
  const double t = (b.radius > r ? b.radius : r) * (1.0 + slack);
  return boxes_within(lo, hi, b.lo, b.hi, t * t, box);
}

}  // namespace mpsph
