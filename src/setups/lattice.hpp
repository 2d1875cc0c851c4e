// Cubic lattices used by the setup generators.
#pragma once

#include <vector>

#include "core/vec3.hpp"

namespace mpsph {

// Points (i+1/2, j+1/2, k+1/2) * spacing + lo for 0 <= i < nx, ... (cell-centred lattice).
std::vector<Vec3d> cubic_lattice(const Vec3d& lo, double spacing, int nx, int ny, int nz);

// Cell-centred lattice points of the given spacing that lie inside a sphere of radius R about 0.
std::vector<Vec3d> lattice_in_sphere(double radius, double spacing);

}  // namespace mpsph
