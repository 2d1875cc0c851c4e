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

std::vector<Vec3d> lattice_in_sphere(double radius, double spacing) {
  const int m = int(std::ceil(radius / spacing));
  std::vector<Vec3d> p;
  for (const Vec3d& x :
       cubic_lattice({-m * spacing, -m * spacing, -m * spacing}, spacing, 2 * m, 2 * m, 2 * m))
    if (norm2(x) < radius * radius) p.push_back(x);
  return p;
}

}  // namespace mpsph
