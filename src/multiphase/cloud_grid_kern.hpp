// Neighbour search among the clouds for the collision partners: a uniform grid of cells at least
// 2 R_max wide (R_max the radius of the heaviest cloud), so that two clouds that touch
// (r_ij < R_i + R_j <= 2 R_max) lie in the same or in adjacent cells. The clouds are sorted by
// cell key; a cloud looks up its 27 neighbour cells by binary search in the sorted keys. Shared by
// the OpenMP driver and the CUDA driver: the cost is O(N_cl log N_cl) for the sort and
// O(27 log N_cl + candidates) per cloud for the search, on either backend.
//
// Open boxes: cell indices are floor(x / cell) packed into 21 bits each; clouds farther apart than
// 2^21 cells alias into the same key, which only adds candidates that the distance test rejects.
// Periodic boxes: n_c = floor(L / (2 R_max)) cells per dimension (at least 1), indices modulo n_c.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/sorted_keys.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct CloudGrid {
  double cell[3];    // cell widths [L]
  int64_t ncell[3];  // cells per dimension; 0: unbounded (an open box, 21-bit keys that alias)
  Vec3d lo;          // origin of the cells
  bool periodic;     // cell indices wrap modulo ncell
};

constexpr int64_t kCloudCellMask = (int64_t(1) << 21) - 1;

// The grid for clouds of radius at most r_max (> 0).
MPSPH_HD CloudGrid make_cloud_grid(double r_max, const Box& box) {
  CloudGrid g;
  const double w = 2.0 * r_max;
  const double size[3] = {box.size.x, box.size.y, box.size.z};
  for (int k = 0; k < 3; ++k) {
    if (box.periodic) {
      double n = std::floor(size[k] / w);
      n = n < 1.0 ? 1.0 : (n > double(kCloudCellMask) ? double(kCloudCellMask) : n);
      g.ncell[k] = int64_t(n);
      g.cell[k] = size[k] / n;
    } else {
      g.ncell[k] = 0;
      g.cell[k] = w;
    }
  }
  g.lo = box.periodic ? box.lo : Vec3d{0, 0, 0};
  g.periodic = box.periodic;
  return g;
}

// Cell index of coordinate x along dimension k (periodic: in [0, ncell)).
MPSPH_HD int64_t cloud_cell_index(const CloudGrid& g, int k, double x, double lo) {
  int64_t c = int64_t(std::floor((x - lo) / g.cell[k]));
  if (g.ncell[k] > 0 && !g.periodic) return c < 0 ? 0 : (c >= g.ncell[k] ? g.ncell[k] - 1 : c);
  if (g.ncell[k] > 0) {
    c %= g.ncell[k];
    if (c < 0) c += g.ncell[k];
  }
  return c;
}

MPSPH_HD uint64_t cloud_cell_key(int64_t cx, int64_t cy, int64_t cz) {
  return (uint64_t(cx & kCloudCellMask) << 42) | (uint64_t(cy & kCloudCellMask) << 21) |
         uint64_t(cz & kCloudCellMask);
}

MPSPH_HD void cloud_cell(const CloudGrid& g, const Vec3d& x, int64_t c[3]) {
  c[0] = cloud_cell_index(g, 0, x.x, g.lo.x);
  c[1] = cloud_cell_index(g, 1, x.y, g.lo.y);
  c[2] = cloud_cell_index(g, 2, x.z, g.lo.z);
}

MPSPH_HD uint64_t cloud_key(const CloudGrid& g, const Vec3d& x) {
  int64_t c[3];
  cloud_cell(g, x, c);
  return cloud_cell_key(c[0], c[1], c[2]);
}

// The distinct neighbour offsets along dimension k: -1, 0, 1, or fewer when a periodic dimension
// has fewer than 3 cells (so no cell is visited twice). Returns their number.
MPSPH_HD int cloud_cell_offsets(const CloudGrid& g, int k, int off[3]) {
  const int64_t n = g.ncell[k];
  if (n == 1) {
    off[0] = 0;
    return 1;
  }
  if (n == 2) {
    off[0] = 0, off[1] = 1;
    return 2;
  }
  off[0] = -1, off[1] = 0, off[2] = 1;
  return 3;
}

MPSPH_HD int64_t shifted_cell(const CloudGrid& g, int k, int64_t c, int d) {
  int64_t s = c + d;
  if (g.ncell[k] > 0 && g.periodic) {
    if (s < 0) s += g.ncell[k];
    if (s >= g.ncell[k]) s -= g.ncell[k];
  }
  return s;
}

// Calls f(k) for every position k of keys (sorted, n entries) whose cloud lies in a cell next to
// (or in) the cell of x. Each position once.
template <class F>
MPSPH_HD void for_each_cloud_near(const CloudGrid& g, const uint64_t* keys, std::size_t n,
                                  const Vec3d& x, F&& f) {
  int64_t c[3];
  cloud_cell(g, x, c);
  int ox[3], oy[3], oz[3];
  const int nx = cloud_cell_offsets(g, 0, ox), ny = cloud_cell_offsets(g, 1, oy),
            nz = cloud_cell_offsets(g, 2, oz);
  for (int a = 0; a < nx; ++a)
    for (int b = 0; b < ny; ++b)
      for (int d = 0; d < nz; ++d) {
        const uint64_t key =
            cloud_cell_key(shifted_cell(g, 0, c[0], ox[a]), shifted_cell(g, 1, c[1], oy[b]),
                           shifted_cell(g, 2, c[2], oz[d]));
        for (std::size_t k = lower_bound_key(keys, n, key); k < n && keys[k] == key; ++k) f(k);
      }
}

}  // namespace mpsph
