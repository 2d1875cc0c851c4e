#include "core/particles_near.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

namespace mpsph {

namespace {

// Cells of at least a radius r along each axis: in an open box cubes of edge r from the origin
// (any integer index); in a periodic box n_d = floor(size_d / r) cells per axis of the wrapped
// positions (indices taken modulo n_d), so that the nearest image of any point within r lies in
// one of the 27 cells around a particle's.
struct PointGrid {
  Box box;
  std::array<int64_t, 3> n{};  // periodic: cells per axis
  std::array<double, 3> edge{};
  std::unordered_map<uint64_t, std::vector<uint32_t>> cells;

  std::array<int64_t, 3> cell_of(const Vec3d& x) const {
    const Vec3d w = wrap_position(x, box);
    const double c[3] = {w.x - box.lo.x, w.y - box.lo.y, w.z - box.lo.z};
    std::array<int64_t, 3> ic{};
    for (int d = 0; d < 3; ++d) {
      ic[std::size_t(d)] = int64_t(std::floor(c[d] / edge[std::size_t(d)]));
      if (box.periodic)
        ic[std::size_t(d)] =
            std::min(std::max<int64_t>(ic[std::size_t(d)], 0), n[std::size_t(d)] - 1);
    }
    return ic;
  }
  // Periodic indices wrap; open ones keep their low 21 bits each: cells 2^21 apart share a key,
  // which only adds points to a bucket (each is still tested by its distance), never loses one.
  uint64_t key(std::array<int64_t, 3> ic) const {
    uint64_t k = 0;
    for (int d = 0; d < 3; ++d) {
      int64_t v = ic[std::size_t(d)];
      if (box.periodic) {
        const int64_t m = n[std::size_t(d)];
        v = ((v % m) + m) % m;
      } else {
        v += int64_t(1) << 20;
      }
      k = (k << 21) | (uint64_t(v) & ((uint64_t(1) << 21) - 1));
    }
    return k;
  }
};

// The grid over the points `pick` of `points` with cells at least `cell` wide.
PointGrid make_point_grid(const std::vector<Vec3d>& points, const std::vector<uint32_t>& pick,
                          double cell, const Box& box) {
  PointGrid g;
  g.box = box;
  const double size[3] = {box.size.x, box.size.y, box.size.z};
  for (int d = 0; d < 3; ++d) {
    if (box.periodic) {
      g.n[std::size_t(d)] = std::max<int64_t>(1, int64_t(std::floor(size[d] / cell)));
      g.edge[std::size_t(d)] = size[d] / double(g.n[std::size_t(d)]);
    } else {
      g.edge[std::size_t(d)] = cell;
    }
  }
  for (uint32_t q : pick) g.cells[g.key(g.cell_of(points[q]))].push_back(q);
  return g;
}

// Calls f(q) for every point q in the cells next to or at the cell of x (each cell once), until f
// returns false.
template <class F>
void visit_near(const PointGrid& g, const Vec3d& x, F&& f) {
  const std::array<int64_t, 3> c = g.cell_of(x);
  uint64_t seen[27];
  int n_seen = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        const uint64_t k = g.key({c[0] + dx, c[1] + dy, c[2] + dz});
        // With fewer than 3 periodic cells on an axis, neighbours repeat: visit each once.
        if (std::find(seen, seen + n_seen, k) != seen + n_seen) continue;
        seen[n_seen++] = k;
        const auto it = g.cells.find(k);
        if (it == g.cells.end()) continue;
        for (uint32_t q : it->second)
          if (!f(q)) return;
      }
}

// Marks near[i - begin] for the particles of `type` in [begin, end) within radius[q] of a point
// q of `pick` (indices into points), on a grid of cells at least `cell` >= every radius[q] wide.
void mark_near(const ParticleView& p, std::size_t begin, std::size_t end, uint8_t type,
               const std::vector<Vec3d>& points, const std::vector<double>& radius,
               const std::vector<uint32_t>& pick, double cell, const Box& box,
               std::vector<char>& near) {
  const PointGrid g = make_point_grid(points, pick, cell, box);
  const auto lo = static_cast<std::ptrdiff_t>(begin), hi = static_cast<std::ptrdiff_t>(end);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = lo; i < hi; ++i) {
    if (p.type[i] != type || near[std::size_t(i - lo)]) continue;
    bool hit = false;
    visit_near(g, p.pos[i], [&](uint32_t q) {
      hit = norm2(min_image(p.pos[i] - points[q], box)) <= radius[q] * radius[q];
      return !hit;
    });
    near[std::size_t(i - lo)] = hit;
  }
}

std::vector<uint32_t> collect(const std::vector<char>& near, std::size_t begin) {
  std::vector<uint32_t> out;
  for (std::size_t k = 0; k < near.size(); ++k)
    if (near[k]) out.push_back(uint32_t(begin + k));
  return out;
}

}  // namespace

std::vector<uint32_t> particles_near(const ParticleView& p, std::size_t begin, std::size_t end,
                                     uint8_t type, const std::vector<Vec3d>& points, double radius,
                                     const Box& box) {
  return particles_near(p, begin, end, type, points, std::vector<double>(points.size(), radius),
                        box);
}

std::vector<uint32_t> particles_near(const ParticleView& p, std::size_t begin, std::size_t end,
                                     uint8_t type, const std::vector<Vec3d>& points,
                                     const std::vector<double>& radius, const Box& box) {
  if (points.empty() || begin >= end) return {};
  // Classes of radii in [2^e, 2^(e+1)): each on a grid of cells of its largest radius, so that a
  // few large radii do not make the cells of all the others large.
  std::map<int, std::vector<uint32_t>> classes;
  for (std::size_t q = 0; q < points.size(); ++q)
    if (radius[q] > 0.0) classes[std::ilogb(radius[q])].push_back(uint32_t(q));
  std::vector<char> near(end - begin, 0);
  for (const auto& [e, pick] : classes) {
    double cell = 0.0;
    for (uint32_t q : pick) cell = std::max(cell, radius[q]);
    mark_near(p, begin, end, type, points, radius, pick, cell, box, near);
  }
  return collect(near, begin);
}

std::vector<std::pair<uint32_t, uint32_t>> pairs_near(const ParticleView& p, std::size_t begin,
                                                      std::size_t end, uint8_t type,
                                                      const std::vector<Vec3d>& points,
                                                      double radius, const Box& box) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (points.empty() || begin >= end || !(radius > 0.0)) return out;
  std::vector<uint32_t> all(points.size());
  for (std::size_t q = 0; q < all.size(); ++q) all[q] = uint32_t(q);
  const PointGrid g = make_point_grid(points, all, radius, box);
  const double r2 = radius * radius;
  const auto lo = static_cast<std::ptrdiff_t>(begin), hi = static_cast<std::ptrdiff_t>(end);
  // Each thread's pairs, joined in any order: the sort below makes the order.
#pragma omp parallel
  {
    std::vector<std::pair<uint32_t, uint32_t>> mine;
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = lo; i < hi; ++i) {
      if (p.type[i] != type) continue;
      visit_near(g, p.pos[i], [&](uint32_t q) {
        if (norm2(min_image(p.pos[i] - points[q], box)) <= r2) mine.push_back({uint32_t(i), q});
        return true;
      });
    }
#pragma omp critical(mpsph_pairs_near)
    out.insert(out.end(), mine.begin(), mine.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mpsph
