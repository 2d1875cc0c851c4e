// The bounding box of particle positions, on the OpenMP threads: what the key cubes of the order
// stage, the gravity octree and the ranks' decomposition are made from.
#pragma once

#include <cstddef>
#include <limits>

#include "core/vec3.hpp"

namespace mpsph {

struct PositionBounds {
  Vec3d lo, hi;  // lo > hi componentwise (+inf, -inf) when there are no positions
};

// Of pos[0 .. n), or of pos[at[k]] for k < n when `at` is given.
inline PositionBounds position_bounds(const Vec3d* pos, std::size_t n,
                                      const std::size_t* at = nullptr) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double lx = inf, ly = inf, lz = inf, hx = -inf, hy = -inf, hz = -inf;
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) reduction(min : lx, ly, lz) reduction(max : hx, hy, hz)
  for (std::ptrdiff_t k = 0; k < count; ++k) {
    const Vec3d& x = pos[at ? at[k] : std::size_t(k)];
    lx = x.x < lx ? x.x : lx, ly = x.y < ly ? x.y : ly, lz = x.z < lz ? x.z : lz;
    hx = x.x > hx ? x.x : hx, hy = x.y > hy ? x.y : hy, hz = x.z > hz ? x.z : hz;
  }
  return {{lx, ly, lz}, {hx, hy, hz}};
}

}  // namespace mpsph
