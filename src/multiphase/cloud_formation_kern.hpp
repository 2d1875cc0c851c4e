// Warm -> cold (PHYSICS.md section 5): a gas particle becomes a cloud (type 2, in place) when
// T <= T_c, n_H >= n_c and div v < 0. It keeps its mass, position, velocity and metals; its
// thermal energy leaves the gas (energy.csv column E_cloud_formation).
#pragma once

#include <cstddef>

#include "cooling/cooling_kern.hpp"
#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "timestep/integrator_kern.hpp"

namespace mpsph {

struct CloudFormationParams {
  double T_c;          // K
  double n_c;          // cm^-3
  MuModel mu;          // T(u)
  double u_to_T;       // T [K] = mu u_to_T u (cooling_kern.hpp temperature_from_u)
  double nH_per_rho;   // n_H [cm^-3] = X_H nH_per_rho rho [code]
  double x_h_default;  // X_H of particles without x_h
  bool u_integrated;   // a module stage before this one integrated u over the step (cooling)
};

// The three criteria; each one alone blocks the conversion. Symmetric in nothing: one particle.
MPSPH_HD bool forms_cloud(const CloudFormationParams& p, double T, double n_H, double div_v) {
  return T <= p.T_c && n_H >= p.n_c && div_v < 0.0;
}

// Gas particle i at the end of its step of length dt: its u as the step leaves it (the cooling
// stage's, or the corrector's of u0, dudt0, dudt), T from that u, n_H from rho. Converts it when
// forms_cloud() holds and returns the thermal energy m u it takes out of the gas (else 0). A
// converted particle's u, u0, dudt0 and dudt are zeroed, so neither the corrector nor another
// module gives it thermal energy again.
MPSPH_HD double form_cloud_from_gas(const CloudFormationParams& p, const ParticleView& s,
                                    std::size_t i, double dt) {
  if (s.type[i] != kGas) return 0.0;
  const double u_end = p.u_integrated ? s.u[i] : correct_energy(s.u0[i], s.dudt0[i], s.dudt[i], dt);
  const double T = temperature_from_u(p.mu, p.u_to_T, u_end);
  const double x_h = s.x_h[i] > 0.0 ? s.x_h[i] : p.x_h_default;
  const double n_H = x_h * p.nH_per_rho * double(s.rho[i]);
  if (!forms_cloud(p, T, n_H, double(s.divv[i]))) return 0.0;
  s.type[i] = kCloud;
  s.u[i] = 0.0;
  s.u0[i] = 0.0;
  s.dudt0[i] = 0.0;
  s.dudt[i] = 0.0;
  return s.mass[i] * u_end;
}

}  // namespace mpsph
