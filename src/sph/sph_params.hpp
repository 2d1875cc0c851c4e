// Parameters of the SPH scheme (PHYSICS.md section 1); member initialisers are the defaults.
#pragma once

#include <cstddef>
#include <string>

namespace mpsph {

class Config;
class Schema;

struct SphParams {
  int n_neighbours = 50;  // N_B: neighbours inside 2 h_i
  double h_min = 0.0;     // floor on h (code length); 0 = none
  double alpha = 1.0;     // Monaghan-Gingold viscosity
  double beta = 2.0;
  double eps_visc = 0.01;     // eps in mu_ij = h v.r / (r^2 + eps h^2)
  bool balsara = true;        // Balsara switch on/off
  double balsara_eps = 1e-4;  // eps' in f_i = |div v| / (|div v| + |curl v| + eps' c/h)
  // du_i/dt with P_i/rho_i^2 alone (default; GADGET-2/SWIFT) or the seed's 1/2 (P_i/rho_i^2 +
  // P_j/rho_j^2) (sph.energy_equation: symmetric; force_kern.hpp)
  bool energy_own_pressure = true;

  // Whether n_gas gas particles are enough for SPH: each needs N_B neighbours, so N_B + 1. A run
  // starts with that many (input validation); when sinks leave fewer, the backends skip the SPH
  // stages and the gas moves without pressure forces.
  bool enough_gas(std::size_t n_gas) const { return n_gas > std::size_t(n_neighbours); }
};

void add_sph_params(Schema& schema);
SphParams sph_params_from(const Config& cfg);

}  // namespace mpsph
