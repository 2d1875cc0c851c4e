#include "setups/lattice.hpp"

#include <cmath>

namespace mpsph {

std::vector<Vec3d> cubic_lattice(const Vec3d& lo, double spacing, int nx, int ny, int nz) {
  std::vector<Vec3d> p;
  p.reserve(std::size_t(nx) * ny * nz);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        p.push_back(
            {lo.x + (i + 0.5) * spacing, lo.y + (j + 0.5) * spacing, lo.z + (k + 0.5) * spacing});
  return p;
}

namespace {

// The sphere's lattice plane by plane (cubic_lattice's outer index i): the points of plane i in
// cubic_lattice's order, and how many each plane has.
struct SphereLattice {
  int m;
  double spacing, radius;
  SphereLattice(double r, double d) : m(int(std::ceil(r / d))), spacing(d), radius(r) {}
  Vec3d point(int i, int j, int k) const {
    return {-m * spacing + (i + 0.5) * spacing, -m * spacing + (j + 0.5) * spacing,
            -m * spacing + (k + 0.5) * spacing};
  }
  template <class F>
  void plane(int i, F&& f) const {
    for (int j = 0; j < 2 * m; ++j)
      for (int k = 0; k < 2 * m; ++k) {
        const Vec3d x = point(i, j, k);
        if (norm2(x) < radius * radius) f(x);
      }
  }
  std::vector<std::size_t> plane_counts() const {
    std::vector<std::size_t> c(std::size_t(2 * m), 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < 2 * m; ++i) {
      std::size_t n = 0;
      plane(i, [&n](const Vec3d&) { ++n; });
      c[std::size_t(i)] = n;
    }
    return c;
  }
};

}  // namespace

std::vector<Vec3d> lattice_in_sphere(double radius, double spacing) {
  return lattice_in_sphere_range(radius, spacing, 0, lattice_in_sphere_count(radius, spacing));
}

std::size_t lattice_in_sphere_count(double radius, double spacing) {
  std::size_t n = 0;
  for (const std::size_t c : SphereLattice(radius, spacing).plane_counts()) n += c;
  return n;
}

std::vector<Vec3d> lattice_in_sphere_range(double radius, double spacing, std::size_t first,
                                           std::size_t count) {
  const SphereLattice l(radius, spacing);
  const std::vector<std::size_t> counts = l.plane_counts();
  std::vector<Vec3d> out;
  out.reserve(count);
  std::size_t at = 0;  // index of the plane's first point
  for (int i = 0; i < 2 * l.m && out.size() < count; ++i) {
    const std::size_t c = counts[std::size_t(i)];
    if (at + c > first) {
      std::size_t k = at;
      l.plane(i, [&](const Vec3d& x) {
        if (k >= first && out.size() < count) out.push_back(x);
        ++k;
      });
    }
    at += c;
  }
  return out;
}

}  // namespace mpsph
