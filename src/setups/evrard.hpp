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
// Part `part` of `parts` (MPI ranks making their own initial conditions): the lattice points of
// index [part N / parts, (part + 1) N / parts) of the N of the whole sphere, with the ids and
// values they have in the whole; the parts in order are make_evrard(p) exactly.
ParticleStore make_evrard(const EvrardParams& p, std::size_t part = 0, std::size_t parts = 1);

}  // namespace mpsph
