// Direct O(N^2) summation: the accuracy reference for the tree and the method for small N.
#pragma once

#include <cstddef>

#include "core/vec3.hpp"
#include "gravity/gravity_params.hpp"

namespace mpsph {

class ParticleStore;

// All particles act as sources; the targets are a sub-range of the same particles.
struct GravitySources {
  const Vec3d* pos;
  const double* mass;
  const float* eps;  // Plummer-equivalent softening per particle
  std::size_t n;
};

// acc[i], pot[i] (G applied) for targets i in [first, last), summing over all j != i. Pair terms
// in float on separations taken in double (DESIGN.md section 4); each term is exactly
// antisymmetric and the sums are accumulated in double, so sum_i m_i a_i vanishes to double
// round-off.
void direct_gravity(const GravitySources& src, SofteningKernel kernel, double G, std::size_t first,
                    std::size_t last, Vec3d* acc, double* pot);

// The same entirely in double: the reference the tests compare against.
void direct_gravity_double(const GravitySources& src, SofteningKernel kernel, double G,
                           std::size_t first, std::size_t last, Vec3d* acc, double* pot);

}  // namespace mpsph
