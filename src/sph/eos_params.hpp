// Parameters of the equation of state (PHYSICS.md section 1; docs/eos.md): the `eos:` section of
// the config. Member initialisers are the defaults; the laws themselves are in eos_kern.hpp.
#pragma once

namespace mpsph {

class Config;
class Schema;

enum class EosKind {
  Adiabatic,   // P = (gamma - 1) rho u, u evolved by the energy equation
  Isothermal,  // P = c_s^2 rho
  Barotropic,  // P = c_s^2 rho [1 + (rho/rho_crit)^(2/5)]
  Piecewise    // P = K_k rho^eta_k, eta = 1, 7/5, 1.1, 5/3 (Bate, Bonnell & Bromm 2003)
};

struct EosParams {
  EosKind kind = EosKind::Adiabatic;
  double gamma = 5.0 / 3.0;  // adiabatic index; for the other kinds it only converts P/rho to u
  double sound_speed =
      0.0;                // isothermal sound speed c_s of the non-adiabatic kinds (code velocity)
  double rho_crit = 0.0;  // barotropic break density (code density)
  double rho_1 = 0.0;     // piecewise break densities rho_1 < rho_2 < rho_3 (code density)
  double rho_2 = 0.0;
  double rho_3 = 0.0;
};

void add_eos_params(Schema& schema);
// Reads the eos section; c_s from eos.sound_speed or from eos.temperature and eos.mu
// (c_s^2 = k_B T / (mu m_H), which needs a physical unit system). Throws mpsph::Error.
EosParams eos_params_from(const Config& cfg);
// Name of the kind as in the config ("adiabatic", ...).
const char* eos_type_name(EosKind kind);

}  // namespace mpsph
