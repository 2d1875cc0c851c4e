// Equations of state (PHYSICS.md section 1; docs/eos.md): pressure and sound speed of one particle.
//   adiabatic:   P = (gamma - 1) rho u,            c = sqrt(gamma P / rho)
//   isothermal:  P = c_s^2 rho,                    c = c_s
//   barotropic:  P = c_s^2 rho [1 + (rho/rho_c)^(2/5)],
//                c = sqrt(dP/drho) = c_s sqrt(1 + 7/5 (rho/rho_c)^(2/5))
//   piecewise:   P = K_k rho^eta_k with eta = 1 (rho <= rho_1), 7/5 (rho_1 < rho <= rho_2),
//                1.1 (rho_2 < rho <= rho_3), 5/3 (rho > rho_3), K_1 = c_s^2 and each K_k such that
//                P is continuous at the breaks; c = sqrt(dP/drho) = sqrt(eta_k P / rho).
// The barotropic form is the molecular-cloud EOS of the seed (isothermal below rho_c, gamma = 7/5
// above); the piecewise form is the barotropic EOS of Bate, Bonnell & Bromm 2003 (MNRAS 339, 577,
// section 2: eta = 1 then 7/5) with the later stiffening stages of Bate 1998 (ApJ 508, L95) and
// Price & Bate 2007 (MNRAS 377, 77): 1.1 in the second collapse, 5/3 in the stellar core. The
// sound speed of every barotropic law is the true adiabatic one of a barotropic fluid, dP/drho.
//
// Non-adiabatic laws fix P from rho alone; u is then not evolved but set from the EOS as the
// specific internal energy of an ideal gas of index eos.gamma at that pressure,
// u = P / ((gamma - 1) rho), so that T = (gamma - 1) mu m_H u / k_B = mu m_H P / (rho k_B) is the
// EOS's temperature (eos_specific_energy).
//
// Evaluated in double (once per particle, cheap) and stored in float.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "sph/eos_params.hpp"

namespace mpsph {

struct EosState {
  float pressure;  // [mass velocity^2 / length^3]
  float csound;    // [velocity]
};

// Whether u is evolved by the energy equation (adiabatic) or set from the density (the others).
MPSPH_HD bool eos_evolves_u(const EosParams& eos) {
  return eos.kind == EosKind::Adiabatic;
}

// A barotropic law at one density: P/rho and c^2 = dP/drho, both [velocity^2].
struct Barotrope {
  double p_over_rho;
  double c2;
};

// P = c_s^2 rho [1 + (rho/rho_c)^(2/5)] (PHYSICS.md section 1).
MPSPH_HD Barotrope barotropic_law(double cs2, double rho_crit, double rho) {
  const double x = std::pow(rho / rho_crit, 0.4);
  return {cs2 * (1.0 + x), cs2 * (1.0 + 1.4 * x)};
}

// P = K_k rho^eta_k, continuous, K_1 = c_s^2 (Bate, Bonnell & Bromm 2003; see the header).
// P/rho = c_s^2 prod over the passed breaks (rho_k+1/rho_k)^(eta_k - 1) (rho/rho_last)^(eta - 1).
MPSPH_HD Barotrope piecewise_law(double cs2, double rho_1, double rho_2, double rho_3, double rho) {
  if (rho <= rho_1) return {cs2, cs2};
  if (rho <= rho_2) {
    const double pr = cs2 * std::pow(rho / rho_1, 0.4);
    return {pr, 1.4 * pr};
  }
  const double p2 = cs2 * std::pow(rho_2 / rho_1, 0.4);  // P/rho at rho_2
  if (rho <= rho_3) {
    const double pr = p2 * std::pow(rho / rho_2, 0.1);
    return {pr, 1.1 * pr};
  }
  const double pr = p2 * std::pow(rho_3 / rho_2, 0.1) * std::pow(rho / rho_3, 2.0 / 3.0);
  return {pr, (5.0 / 3.0) * pr};
}

// The law of a non-adiabatic EOS at density rho.
MPSPH_HD Barotrope barotrope(const EosParams& eos, double rho) {
  const double cs2 = eos.sound_speed * eos.sound_speed;
  switch (eos.kind) {
    case EosKind::Barotropic:
      return barotropic_law(cs2, eos.rho_crit, rho);
    case EosKind::Piecewise:
      return piecewise_law(cs2, eos.rho_1, eos.rho_2, eos.rho_3, rho);
    default:  // isothermal (adiabatic has no barotrope; eos_state does not ask for it)
      return {cs2, cs2};
  }
}

// rho [code density], u [velocity^2] (specific internal energy; read only when adiabatic).
MPSPH_HD EosState eos_state(const EosParams& eos, double rho, double u) {
  double p = 0.0, c2 = 0.0;
  if (eos.kind == EosKind::Adiabatic) {
    p = (eos.gamma - 1.0) * rho * u;
    c2 = rho > 0.0 ? eos.gamma * p / rho : 0.0;
  } else {
    const Barotrope b = barotrope(eos, rho);
    p = b.p_over_rho * rho;
    c2 = b.c2;
  }
  return {float(p), float(std::sqrt(c2 > 0.0 ? c2 : 0.0))};
}

// Specific internal energy [velocity^2] of a particle of density rho under a non-adiabatic EOS:
// u = P/((gamma - 1) rho), the ideal gas of index gamma at the EOS's pressure and temperature.
MPSPH_HD double eos_specific_energy(const EosParams& eos, double rho) {
  return barotrope(eos, rho).p_over_rho / (eos.gamma - 1.0);
}

// Applies the EOS to gas particle i: pressure and sound speed, and for a non-adiabatic EOS u (set
// from the density, see the header). The one per-particle EOS step of prepare_force and of the
// block predictor, on both backends.
MPSPH_HD EosState apply_eos(const EosParams& eos, const ParticleView& v, std::size_t i) {
  const EosState e = eos_state(eos, v.rho[i], v.u[i]);
  v.pressure[i] = e.pressure;
  v.csound[i] = e.csound;
  if (!eos_evolves_u(eos)) v.u[i] = eos_specific_energy(eos, v.rho[i]);
  return e;
}

}  // namespace mpsph
