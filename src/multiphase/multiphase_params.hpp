// Parameters of the cold phase (PHYSICS.md section 5); member initialisers are the defaults.
//   multiphase: {model: none|sticky_clouds, cloud_interaction: collisions|viscosity,
//                T_c_K, n_c_cm3, sigma_cl_Msun_pc2, restitution, m_max_Msun, viscosity_neighbours,
//                sigma_c_kms, viscosity_alpha, viscosity_beta, hot_K, hydrogen_fraction}
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
  double m_max_Msun = 1e7;         // clouds coalesce only below this merged mass
  int viscosity_neighbours = 32;   // scheme A: clouds inside 2 h of a cloud
  double sigma_c_kms = 5.0;        // scheme A: floor of the clouds' velocity dispersion
  double viscosity_alpha = 1.0;    // scheme A: Monaghan & Gingold 1983 alpha, beta
  double viscosity_beta = 2.0;
  double hot_K = 1e5;              // gas above it is "hot", at or below it "warm" (diagnostics)
  double hydrogen_fraction = 0.7;  // X_H for n_H where particles carry none (x_h = 0)
  // Mean molecular weight of T(u): the cooling section's cooling.mu_model and cooling.mu.
  bool mu_variable = true;
  double mu = 0.59;
  double gamma = 5.0 / 3.0;  // eos.gamma
};

// "none" | "sticky_clouds"; any other name throws mpsph::Error listing the valid ones.
MultiphaseKind parse_multiphase_model(const std::string& name);

void add_multiphase_params(Schema& schema);
MultiphaseParams multiphase_params_from(const Config& cfg);

}  // namespace mpsph
