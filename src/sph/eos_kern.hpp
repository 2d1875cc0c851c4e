// Equations of state (PHYSICS.md section 1): pressure and sound speed of one particle.
//   adiabatic:   P = (gamma - 1) rho u,            c = sqrt(gamma P / rho)
//   isothermal:  P = c_s^2 rho,                    c = c_s
//   barotropic:  P = c_s^2 rho [1 + (rho/rho_c)^(2/5)],
//                c = sqrt(dP/drho) = c_s sqrt(1 + 7/5 (rho/rho_c)^(2/5))
// The barotropic form is the molecular-cloud EOS of the seed (isothermal below rho_c, gamma = 7/5
// above); its sound speed is the true adiabatic one of a barotropic fluid, dP/drho.
// Evaluated in double (once per particle, cheap) and stored in float.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

struct EosState {
  float pressure;  // [mass velocity^2 / length^3]
  float csound;    // [velocity]
};

// rho [code density], u [velocity^2] (specific internal energy; read only when adiabatic).
MPSPH_HD EosState eos_state(const EosParams& eos, double rho, double u) {
  double p = 0.0, c2 = 0.0;
  switch (eos.kind) {
    case EosKind::Adiabatic:
      p = (eos.gamma - 1.0) * rho * u;
      c2 = rho > 0.0 ? eos.gamma * p / rho : 0.0;
      break;
    case EosKind::Isothermal:
      p = eos.sound_speed * eos.sound_speed * rho;
      c2 = eos.sound_speed * eos.sound_speed;
      break;
    case EosKind::Barotropic: {
      const double x = std::pow(rho / eos.rho_crit, 0.4);
      const double cs2 = eos.sound_speed * eos.sound_speed;
      p = cs2 * rho * (1.0 + x);
      c2 = cs2 * (1.0 + 1.4 * x);
      break;
    }
  }
  return {float(p), float(std::sqrt(c2 > 0.0 ? c2 : 0.0))};
}

}  // namespace mpsph
