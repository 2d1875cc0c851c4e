// The gas neighbours of a star for the feedback stage: the K nearest gas particles, from a uniform
// grid of cubic cells over the gas, sorted by cell key (keys[k] ascending, idx[k] the gas store
// index). A star visits the cells in rings of growing Chebyshev radius r around its own cell and
// stops once it holds K candidates and the K-th is closer than r cell widths (every cell beyond
// ring r is at least that far), or when every cell has been visited. A cell is found by binary
// search in the sorted keys. The candidates are ordered by (distance^2, id), so the result does
// not depend on the order cells or particles are visited: the CPU and the GPU drivers share this
// code and get the same neighbours.
//
// The same grid serves range searches (every gas particle within r of a point: the groups of sink
// candidates, sinks/sinks.hpp): with cells at least feedback_range_cell(r) wide, such a particle
// lies in the 3 x 3 x 3 cells around the point's cell (feedback_cells_near).
//
// Open boxes: the grid spans the gas bounding box (a star outside it takes the nearest cell; the
// ring bound still holds). Periodic boxes: floor(L / cell) cells per dimension, offsets taken
// modulo so that no cell is visited twice. Cell indices are packed into 21 bits per dimension
// (at most 2^21 - 1 cells per dimension; the builder widens the cells if needed).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/sorted_keys.hpp"
#include "core/vec3.hpp"

namespace mpsph {

constexpr int64_t kFeedbackCellLimit = (int64_t(1) << 21) - 1;

struct FeedbackGrid {
  double cell[3] = {1, 1, 1};  // cell widths [L]
  int64_t ncell[3] = {1, 1, 1};
  Vec3d lo{0, 0, 0};  // corner of cell (0, 0, 0)
  bool periodic = false;
  const uint64_t* keys = nullptr;  // n sorted cell keys
  const uint32_t* idx = nullptr;   // gas store index of each key
  std::size_t n = 0;
};

// Cells of width w (> 0) over the gas bounding box [lo, hi] (open box) or the periodic box: w
// widened where needed to respect the 21-bit limit; periodic: L_k / ncell_k exactly, >= w.
MPSPH_HD FeedbackGrid make_feedback_grid(double w, Vec3d lo, Vec3d hi, const Box& box) {
  FeedbackGrid g;
  g.periodic = box.periodic;
  const double span[3] = {box.periodic ? box.size.x : hi.x - lo.x,
                          box.periodic ? box.size.y : hi.y - lo.y,
                          box.periodic ? box.size.z : hi.z - lo.z};
  for (int k = 0; k < 3; ++k)
    if (span[k] / w > double(kFeedbackCellLimit - 1)) w = span[k] / double(kFeedbackCellLimit - 1);
  for (int k = 0; k < 3; ++k) {
    const double c = box.periodic ? std::floor(span[k] / w) : std::floor(span[k] / w) + 1.0;
    g.ncell[k] = c < 1.0 ? 1 : int64_t(c);
    g.cell[k] = box.periodic ? span[k] / double(g.ncell[k]) : w;
  }
  g.lo = box.periodic ? box.lo : lo;
  return g;
}

// Cell index along dimension k of coordinate x (clamped into the grid; periodic: wrapped).
MPSPH_HD int64_t feedback_cell_index(const FeedbackGrid& g, int k, double x) {
  const double lo = k == 0 ? g.lo.x : (k == 1 ? g.lo.y : g.lo.z);
  int64_t c = int64_t(std::floor((x - lo) / g.cell[k]));
  if (g.periodic) {
    c %= g.ncell[k];
    if (c < 0) c += g.ncell[k];
    return c;
  }
  return c < 0 ? 0 : (c >= g.ncell[k] ? g.ncell[k] - 1 : c);
}

MPSPH_HD uint64_t feedback_cell_key(int64_t cx, int64_t cy, int64_t cz) {
  return (uint64_t(cx) << 42) | (uint64_t(cy) << 21) | uint64_t(cz);
}

MPSPH_HD uint64_t feedback_key(const FeedbackGrid& g, const Vec3d& x) {
  return feedback_cell_key(feedback_cell_index(g, 0, x.x), feedback_cell_index(g, 1, x.y),
                           feedback_cell_index(g, 2, x.z));
}

// The cell width for range searches of radius r (> 0): r widened by 1e-6 relative. A particle
// within r of x (through min_image, rounded) is then less than 1 - 1e-6 cells away from x along
// each axis, while the rounding of the cell coordinates (x - lo) / cell is below 2^-52 x 2^21
// cells: its cell index differs from that of x by at most 1 (modulo ncell in a periodic box).
MPSPH_HD double feedback_range_cell(double r) {
  return r * (1.0 + 1e-6);
}

// The distinct cells next to or at the cell of x (at most 27, in ascending key order): on a grid
// of cells at least feedback_range_cell(r) wide, every gas particle within r of x lies in one of
// them. Open boxes: the neighbours that exist (a point outside the grid takes the nearest cell;
// clamping cannot move a particle's cell away from it). Periodic boxes: the offsets -1, 0, 1
// modulo ncell, each cell once when ncell < 3. Returns the count.
MPSPH_HD int feedback_cells_near(const FeedbackGrid& g, const Vec3d& x, uint64_t key[27]) {
  int64_t cell[3][3];
  int n[3];
  const double xk[3] = {x.x, x.y, x.z};
  for (int k = 0; k < 3; ++k) {
    const int64_t c = feedback_cell_index(g, k, xk[k]), nc = g.ncell[k];
    n[k] = 0;
    if (g.periodic && nc < 3) {
      for (int64_t d = 0; d < nc; ++d) cell[k][n[k]++] = d;
    } else if (g.periodic) {
      for (int64_t d = -1; d <= 1; ++d) cell[k][n[k]++] = (c + d + nc) % nc;
      // ascending: the wrapped neighbour goes to its place
      for (int a = 1; a < 3; ++a)
        for (int b = a; b > 0 && cell[k][b] < cell[k][b - 1]; --b) {
          const int64_t t = cell[k][b];
          cell[k][b] = cell[k][b - 1];
          cell[k][b - 1] = t;
        }
    } else {
      for (int64_t d = c > 0 ? c - 1 : 0; d <= c + 1 && d < nc; ++d) cell[k][n[k]++] = d;
    }
  }
  int m = 0;
  for (int a = 0; a < n[0]; ++a)
    for (int b = 0; b < n[1]; ++b)
      for (int d = 0; d < n[2]; ++d)
        key[m++] = feedback_cell_key(cell[0][a], cell[1][b], cell[2][d]);
  return m;
}

// The K nearest neighbours found so far, ascending in (d2, id).
struct NeighbourSet {
  int n = 0;
  int k = 0;  // capacity K
  double* d2;
  uint32_t* j;
  uint64_t* id;
};

MPSPH_HD bool neighbour_before(double d2a, uint64_t ida, double d2b, uint64_t idb) {
  return d2a < d2b || (d2a == d2b && ida < idb);
}

MPSPH_HD void neighbour_offer(NeighbourSet& s, double d2, uint32_t j, uint64_t id) {
  if (s.n == s.k && !neighbour_before(d2, id, s.d2[s.n - 1], s.id[s.n - 1])) return;
  int p = s.n < s.k ? s.n++ : s.n - 1;
  while (p > 0 && neighbour_before(d2, id, s.d2[p - 1], s.id[p - 1])) {
    s.d2[p] = s.d2[p - 1], s.j[p] = s.j[p - 1], s.id[p] = s.id[p - 1];
    --p;
  }
  s.d2[p] = d2, s.j[p] = j, s.id[p] = id;
}

// Range of offsets [dmin, dmax] along dimension k from cell c: all n distinct cells once.
MPSPH_HD void feedback_offset_range(const FeedbackGrid& g, int k, int64_t c, int64_t& dmin,
                                    int64_t& dmax) {
  const int64_t n = g.ncell[k];
  if (g.periodic) {
    dmin = -((n - 1) / 2);
    dmax = n / 2;
  } else {
    dmin = -c;
    dmax = n - 1 - c;
  }
}

// Offers to s the gas of the cells (cx, cy, z) for z = z0 .. z1 (at most ncell[2] cells; periodic:
// taken modulo ncell[2]). z is the key's lowest field, so the cells of a run are one range of the
// sorted keys: one binary search (two across the periodic wrap) for the whole run.
MPSPH_HD void feedback_offer_z_run(const FeedbackGrid& g, const Box& box, const Vec3d* pos,
                                   const uint64_t* id, const Vec3d& x, int64_t cx, int64_t cy,
                                   int64_t z0, int64_t z1, NeighbourSet& s) {
  const int64_t nz = g.ncell[2];
  int64_t run[2][2] = {{z0, z1}, {0, -1}};  // the second only across the wrap
  if (g.periodic) {
    const int64_t shift = z0 < 0 ? nz : (z0 >= nz ? -nz : 0);
    run[0][0] += shift, run[0][1] += shift;
    if (run[0][1] >= nz) run[1][1] = run[0][1] - nz, run[0][1] = nz - 1;
  }
  for (int q = 0; q < 2; ++q) {
    if (run[q][0] > run[q][1]) continue;
    const uint64_t last = feedback_cell_key(cx, cy, run[q][1]);
    for (std::size_t p = lower_bound_key(g.keys, g.n, feedback_cell_key(cx, cy, run[q][0]));
         p < g.n && g.keys[p] <= last; ++p) {
      const uint32_t j = g.idx[p];
      neighbour_offer(s, norm2(min_image(pos[j] - x, box)), j, id[j]);
    }
  }
}

// Fills s with the K = s.k nearest gas particles of position x (d2 = squared distance through
// min_image). pos, id: the store's positions and ids.
MPSPH_HD void feedback_neighbours(const FeedbackGrid& g, const Box& box, const Vec3d* pos,
                                  const uint64_t* id, const Vec3d& x, NeighbourSet& s) {
  s.n = 0;
  if (g.n == 0) return;
  int64_t c[3], dmin[3], dmax[3];
  c[0] = feedback_cell_index(g, 0, x.x);
  c[1] = feedback_cell_index(g, 1, x.y);
  c[2] = feedback_cell_index(g, 2, x.z);
  int64_t rmax = 0;
  for (int k = 0; k < 3; ++k) {
    feedback_offset_range(g, k, c[k], dmin[k], dmax[k]);
    rmax = -dmin[k] > rmax ? -dmin[k] : rmax;
    rmax = dmax[k] > rmax ? dmax[k] : rmax;
  }
  for (int64_t r = 0; r <= rmax; ++r) {
    const int64_t xa = -r > dmin[0] ? -r : dmin[0], xb = r < dmax[0] ? r : dmax[0];
    const int64_t ya = -r > dmin[1] ? -r : dmin[1], yb = r < dmax[1] ? r : dmax[1];
    const int64_t za = -r > dmin[2] ? -r : dmin[2], zb = r < dmax[2] ? r : dmax[2];
    for (int64_t dx = xa; dx <= xb; ++dx)
      for (int64_t dy = ya; dy <= yb; ++dy) {
        int64_t cx = c[0] + dx, cy = c[1] + dy;
        if (g.periodic) {
          cx += cx < 0 ? g.ncell[0] : (cx >= g.ncell[0] ? -g.ncell[0] : 0);
          cy += cy < 0 ? g.ncell[1] : (cy >= g.ncell[1] ? -g.ncell[1] : 0);
        }
        // On the ring's faces every z (one run of keys); inside them only the two z caps.
        if (dx == -r || dx == r || dy == -r || dy == r) {
          feedback_offer_z_run(g, box, pos, id, x, cx, cy, c[2] + za, c[2] + zb, s);
        } else {
          if (-r >= za) feedback_offer_z_run(g, box, pos, id, x, cx, cy, c[2] - r, c[2] - r, s);
          if (r <= zb) feedback_offer_z_run(g, box, pos, id, x, cx, cy, c[2] + r, c[2] + r, s);
        }
      }
    const double w = g.cell[0] < g.cell[1] ? g.cell[0] : g.cell[1];
    const double bound = double(r) * (w < g.cell[2] ? w : g.cell[2]);
    if (s.n == s.k && s.d2[s.n - 1] <= bound * bound) return;
  }
}

}  // namespace mpsph
