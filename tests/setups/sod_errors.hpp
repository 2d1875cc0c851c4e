// L1 errors of a Sod shock-tube state (src/setups/sod.hpp: rho 1 / 0.125, P 1 / 0.1, interface at
// x = 1) against the exact Riemann solution, over the particles in 0.5 < x < 1.5: the region the
// mirrored problem at x = 0 = 2 of the periodic box cannot reach before t ~ 0.25.
#pragma once

#include <cmath>

#include "core/particle_store.hpp"
#include "setups/riemann_exact.hpp"
#include "setups/riemann_isothermal.hpp"

namespace mpsph::test {

struct SodErrors {
  double rho, vel, pres;  // mean |SPH - exact| of density, x-velocity, pressure
};

inline SodErrors sod_l1_errors(const ParticleStore& s, double t, double gamma) {
  const ExactRiemann exact({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, gamma);
  SodErrors e{0, 0, 0};
  int n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x = s.pos[i].x;
    if (x < 0.5 || x > 1.5) continue;
    const GasState ref = exact.sample((x - 1.0) / t);
    e.rho += std::fabs(s.rho[i] - ref.rho);
    e.vel += std::fabs(s.vel[i].x - ref.u);
    e.pres += std::fabs((gamma - 1) * s.rho[i] * s.u[i] - ref.p);
    ++n;
  }
  e.rho /= n, e.vel /= n, e.pres /= n;
  return e;
}

// The same for the isothermal tube (setups/sod_isothermal.yaml: rho 1 / 0.125 at rest, P = c^2
// rho) against the exact isothermal solution; pres is c^2 |rho - rho_exact|, i.e. c^2 x rho.
inline SodErrors sod_isothermal_l1_errors(const ParticleStore& s, double t, double c) {
  const ExactIsothermalRiemann exact({1.0, 0.0}, {0.125, 0.0}, c);
  SodErrors e{0, 0, 0};
  int n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x = s.pos[i].x;
    if (x < 0.5 || x > 1.5) continue;
    const IsoState ref = exact.sample((x - 1.0) / t);
    e.rho += std::fabs(s.rho[i] - ref.rho);
    e.vel += std::fabs(s.vel[i].x - ref.u);
    ++n;
  }
  e.rho /= n, e.vel /= n;
  e.pres = c * c * e.rho;
  return e;
}

}  // namespace mpsph::test
