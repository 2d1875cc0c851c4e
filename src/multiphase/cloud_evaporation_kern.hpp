// Conductive evaporation and condensation of a cold cloud in hot gas (PHYSICS.md section 5;
// Cowie & McKee 1977, McKee & Cowie 1977, Cowie, McKee & Ostriker 1981). Pure functions in cgs
// and pc, shared by the OpenMP and CUDA drivers through cloud_gas_exchange_kern.hpp.
//
//   classical rate  mdot_class = 2.75e4 T_h^(5/2) R_pc  [g/s]
//   saturation      sigma_0    = (T_h / 1.54e7 K)^2 / (n_h R_pc)
//   mdot = -mdot_class                  for 0.03 <= sigma_0 <= 1     (classical evaporation)
//   mdot = -mdot_class sigma_0^(-5/8)   for sigma_0 > 1              (saturated)
//   mdot = +mdot_class                  for sigma_0 < 0.03           (condensation)
// with T_h [K] and n_h [cm^-3] the kernel-interpolated hot gas at the cloud, n_h its hydrogen
// number density, and R_pc the cloud radius in pc. mdot < 0: the cloud loses mass.
//
// Condensation: PHYSICS.md names only its criterion (sigma_0 < 0.03, where radiative losses of
// the interface beat conduction; McKee & Cowie 1977); its rate here is the classical conductive
// rate with the sign reversed (our choice, written in docs/multiphase.md).
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

constexpr double kCm77ClassicalCoeff = 2.75e4;  // g/s per K^(5/2) pc
constexpr double kCm77SaturationT = 1.54e7;     // K
constexpr double kCm77CondenseBelow = 0.03;     // sigma_0 below which clouds condense

MPSPH_HD double cm77_classical_rate(double T_h, double R_pc) {
  return kCm77ClassicalCoeff * T_h * T_h * std::sqrt(T_h) * R_pc;
}

MPSPH_HD double cm77_sigma0(double T_h, double n_h, double R_pc) {
  const double t = T_h / kCm77SaturationT;
  return t * t / (n_h * R_pc);
}

// dm/dt of the cloud [g/s] (< 0 evaporation, > 0 condensation); 0 without hot gas.
MPSPH_HD double cm77_mass_rate(double T_h, double n_h, double R_pc) {
  if (!(T_h > 0.0) || !(n_h > 0.0) || !(R_pc > 0.0)) return 0.0;
  const double classical = cm77_classical_rate(T_h, R_pc);
  const double s0 = cm77_sigma0(T_h, n_h, R_pc);
  if (s0 < kCm77CondenseBelow) return classical;
  if (s0 <= 1.0) return -classical;
  return -classical * std::pow(s0, -0.625);
}

}  // namespace mpsph
