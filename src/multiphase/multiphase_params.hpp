// Parameters of the cold phase (PHYSICS.md section 5); member initialisers are the defaults.
//   multiphase: {model: none|sticky_clouds, cloud_interaction: collisions|viscosity,
//                T_c_K, n_c_cm3, sigma_cl_Msun_pc2, restitution, m_max_Msun, viscosity_neighbours,
//                sigma_c_kms, viscosity_alpha, viscosity_beta, hot_K, hydrogen_fraction,
//                evaporation: none|cowie_mckee, drag_coefficient, gas_neighbours,
//                cloud_min_mass_fraction, condense_limit, evaporation_courant,
//                viscosity_courant}
#pragma once

#include <string>

namespace mpsph {

class Config;
class Schema;
struct UnitSystem;

enum class MultiphaseKind { None, StickyClouds };
enum class CloudInteraction { Collisions, Viscosity };

struct MultiphaseParams {
  MultiphaseKind kind = MultiphaseKind::None;
  CloudInteraction interaction = CloudInteraction::Collisions;
  double T_c_K = 1e4;              // warm -> cold: T <= T_c
  double n_c_cm3 = 0.1;            // ... and n_H >= n_c
  double sigma_cl_Msun_pc2 = 100;  // cloud surface density: R_cl = sqrt(m / (pi Sigma_cl))
  double restitution = 0.7;        // beta_r = beta_t of a bounce
  double m_max_Msun = 1e7;         // clouds coalesce only below this merged mass and condense
                                   // only up to it
  int viscosity_neighbours = 32;   // scheme A: clouds inside 2 h of a cloud
  double sigma_c_kms = 5.0;        // scheme A: floor of the clouds' velocity dispersion
  double viscosity_alpha = 1.0;    // scheme A: Monaghan & Gingold 1983 alpha, beta
  double viscosity_beta = 2.0;
  double viscosity_courant = 0.1;  // scheme A: dt <= C h_i / (c_i + max_j |v_ij|) (0: off)
  double hot_K = 1e5;              // gas above it is "hot", at or below it "warm" (diagnostics)
  double hydrogen_fraction = 0.7;  // X_H for n_H where particles carry none (x_h = 0)
  // Cloud <-> gas coupling (cloud_gas_exchange_kern.hpp).
  bool evaporation = true;               // Cowie & McKee 1977 evaporation and condensation
  double drag_coefficient = 1.0;         // C_D of the drag (0: no drag)
  int gas_neighbours = 50;               // N_B gas neighbours of a cloud
  double cloud_min_mass_fraction = 0.5;  // of the neighbours' mean mass: below it a cloud -> gas
  double condense_limit = 0.1;           // most a gas neighbour gives one cloud per step (fraction)
  double evaporation_courant = 0.1;      // dt <= C m / |mdot| of a cloud (0: off)
  // Mean molecular weight of T(u): the cooling section's cooling.mu_model and cooling.mu.
  bool mu_variable = true;
  double mu = 0.59;
  double gamma = 5.0 / 3.0;  // eos.gamma
  double courant = 0.1;      // timestep.courant: wake-up of the gas a cloud heats
};

// "none" | "sticky_clouds"; any other name throws mpsph::Error listing the valid ones.
MultiphaseKind parse_multiphase_model(const std::string& name);

void add_multiphase_params(Schema& schema);
MultiphaseParams multiphase_params_from(const Config& cfg);

}  // namespace mpsph
