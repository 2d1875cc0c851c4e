// Parameters of star formation (PHYSICS.md section 6); member initialisers are the defaults.
//   starform: {model: none|clouds|probabilistic|katz, clouds_trigger, eps_sf, cloud_T_K, cloud_mu,
//              eps_ff, c_star, n_sf_cm3, T_sf_K, hydrogen_fraction}
#pragma once

#include <string>

namespace mpsph {

class Config;
class Schema;

enum class StarformKind { None, Clouds, Probabilistic, Katz };

// When model clouds forms a star from a Jeans-unstable cloud: at the coalescence that made it
// (PHYSICS.md section 6, the default), or with probability 1 - exp(-dt / t_ff) per step (a
// free-fall clock).
enum class CloudsTrigger { Coalescence, FreeFall };

struct StarformParams {
  StarformKind kind = StarformKind::None;
  // clouds: a cloud above its Jeans mass turns eps_sf of its mass into one star when a
  // coalescence makes it (trigger coalescence) or once per free-fall time on average (free_fall);
  // the cloud's Jeans mass uses the temperature cloud_T_K and mean molecular weight cloud_mu.
  CloudsTrigger clouds_trigger = CloudsTrigger::Coalescence;
  double eps_sf = 0.05;
  double cloud_T_K = 100.0;
  double cloud_mu = 1.22;
  // probabilistic: a cloud turns into a star with probability 1 - exp(-eps_ff dt / t_ff,cl).
  double eps_ff = 0.02;
  // katz: a gas particle that is convergent, Jeans unstable, cooling faster than it falls
  // (cooling on), denser than n_sf and colder than T_sf turns into a star with probability
  // 1 - exp(-c_star dt / t_ff).
  double c_star = 0.1;
  double n_sf_cm3 = 0.1;
  double T_sf_K = 3e4;
  double hydrogen_fraction = 0.7;  // X_H for n_H of particles that carry none (x_h = 0)
  // From the other sections: the clouds' surface density (multiphase.sigma_cl_Msun_pc2), T(u)
  // (cooling.mu_model, cooling.mu, eos.gamma), and whether cooling is on (katz's t_cool < t_ff).
  bool multiphase_on = false;
  double sigma_cl_Msun_pc2 = 100.0;
  bool mu_variable = true;
  double mu = 0.59;
  double gamma = 5.0 / 3.0;
  bool cooling_on = false;
};

// "none" | "clouds" | "probabilistic" | "katz"; any other name throws mpsph::Error listing the
// valid ones.
StarformKind parse_starform_model(const std::string& name);
const char* starform_model_name(StarformKind kind);

void add_starform_params(Schema& schema);
// Reads the starform section (and the keys of the other sections above). Throws mpsph::Error when
// a cloud model is chosen without the cold phase (multiphase.model sticky_clouds), and for
// clouds_trigger coalescence when the clouds never coalesce (multiphase.cloud_interaction
// viscosity).
StarformParams starform_params_from(const Config& cfg);

}  // namespace mpsph
