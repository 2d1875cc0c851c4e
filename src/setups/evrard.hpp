// Evrard (1988) adiabatic collapse: a gas sphere of mass M and radius R with rho = M/(2 pi R^2 r),
// u = u0 (0.05 G M/R), at rest, gamma = 5/3; in G = M = R = 1 units the free-fall time is ~1.
#pragma once

#include <cstddef>

#include "core/particle_store.hpp"

namespace mpsph {

struct EvrardParams {
  std::size_t n_target = 10000;  // approximate particle number (a lattice gives N close to it)
  double mass = 1.0;
  double radius = 1.0;
  double u0 = 0.05;
};

// Particles from a cubic lattice inside the unit sphere, stretched r -> R r^(3/2) so that the
// enclosed mass M(<r) = M (r/R)^2 of rho ~ 1/r is reproduced exactly in the mean.
ParticleStore make_evrard(const EvrardParams& p);

}  // namespace mpsph
