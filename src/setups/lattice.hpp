// Cubic lattices used by the setup generators.
#pragma once

#include <cstddef>
#include <vector>

#include "core/vec3.hpp"

namespace mpsph {

// Points (i+1/2, j+1/2, k+1/2) * spacing + lo for 0 <= i < nx, ... (cell-centred lattice).
std::vector<Vec3d> cubic_lattice(const Vec3d& lo, double spacing, int nx, int ny, int nz);

// Cell-centred lattice points of the given spacing that lie inside a sphere of radius R about 0,
// in the order of cubic_lattice over the sphere's bounding cube.
std::vector<Vec3d> lattice_in_sphere(double radius, double spacing);
// How many there are, and those of index [first, first + count) in that order, without holding
// the others (initial conditions made in parts, one per MPI rank).
std::size_t lattice_in_sphere_count(double radius, double spacing);
std::vector<Vec3d> lattice_in_sphere_range(double radius, double spacing, std::size_t first,
                                           std::size_t count);

}  // namespace mpsph
