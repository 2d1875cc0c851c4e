#include "multiphase/multiphase_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

MultiphaseKind parse_multiphase_model(const std::string& name) {
  if (name == "none") return MultiphaseKind::None;
  if (name == "sticky_clouds") return MultiphaseKind::StickyClouds;
  throw Error("unknown multiphase.model '" + name + "' (valid: none, sticky_clouds)");
}

void add_multiphase_params(Schema& s) {
  const MultiphaseParams d;
  const std::string on = "multiphase.model=sticky_clouds";
  s.add({"multiphase.model",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "sticky_clouds"},
         "",
         "cold phase: none | sticky_clouds (cold gas as N-body clouds, type 2, with inelastic "
         "collisions; PHYSICS.md section 5)"});
  s.add({"multiphase.cloud_interaction",
         ParamType::Choice,
         "collisions",
         0,
         0,
         false,
         false,
         {"collisions", "viscosity"},
         "",
         "cloud-cloud interaction: collisions (discrete inelastic collisions: coalescence below "
         "the escape speed and m_max, else a bounce with restitution) | viscosity (the SPH "
         "viscosity among the clouds only, density and h from the cloud set)",
         on});
  s.add({"multiphase.T_c_K",
         ParamType::Double,
         param_text(d.T_c_K),
         0,
         1e9,
         true,
         false,
         {},
         "K",
         "warm -> cold: a gas particle becomes a cloud when T <= T_c, n_H >= n_c and div v < 0",
         on});
  s.add({"multiphase.n_c_cm3",
         ParamType::Double,
         param_text(d.n_c_cm3),
         0,
         1e12,
         false,
         false,
         {},
         "cm^-3",
         "warm -> cold: hydrogen number density threshold n_c",
         on});
  s.add({"multiphase.sigma_cl_Msun_pc2",
         ParamType::Double,
         param_text(d.sigma_cl_Msun_pc2),
         0,
         1e9,
         true,
         false,
         {},
         "Msun/pc^2",
         "cloud surface density Sigma_cl: cloud radius R_cl = sqrt(m / (pi Sigma_cl))",
         on});
  s.add({"multiphase.restitution",
         ParamType::Double,
         param_text(d.restitution),
         0,
         1,
         false,
         false,
         {},
         "",
         "restitution beta_r = beta_t of a bounce, in the centre-of-mass frame (1 = elastic)",
         on});
  s.add({"multiphase.m_max_Msun",
         ParamType::Double,
         param_text(d.m_max_Msun),
         0,
         1e20,
         true,
         false,
         {},
         "Msun",
         "the largest cloud: two clouds coalesce only when m_i + m_j < m_max (and |v_ij| is "
         "below their escape speed; otherwise they bounce), and a cloud condenses gas only up to "
         "m_max",
         on});
  const std::string visc = "multiphase.cloud_interaction=viscosity";
  s.add({"multiphase.viscosity_neighbours",
         ParamType::Int,
         param_text(d.viscosity_neighbours),
         1,
         64,
         false,
         false,
         {},
         "",
         "clouds inside 2 h of a cloud (its smoothing length and density come from them)",
         visc});
  s.add({"multiphase.sigma_c_kms",
         ParamType::Double,
         param_text(d.sigma_c_kms),
         0,
         1e6,
         false,
         false,
         {},
         "km/s",
         "floor of the clouds' velocity dispersion, the signal speed of the linear viscosity term",
         visc});
  s.add({"multiphase.viscosity_alpha",
         ParamType::Double,
         param_text(d.viscosity_alpha),
         0,
         100,
         false,
         false,
         {},
         "",
         "linear viscosity coefficient alpha among the clouds",
         visc});
  s.add({"multiphase.viscosity_beta",
         ParamType::Double,
         param_text(d.viscosity_beta),
         0,
         100,
         false,
         false,
         {},
         "",
         "quadratic viscosity coefficient beta among the clouds",
         visc});
  s.add({"multiphase.viscosity_courant",
         ParamType::Double,
         param_text(d.viscosity_courant),
         0,
         1,
         false,
         false,
         {},
         "",
         "C of the clouds' signal-speed time-step criterion dt_i <= C h_i / (c_i + max_j |v_ij|) "
         "(c_i the dispersion with the floor sigma_c, j the clouds it interacts with); 0 = no "
         "criterion",
         visc});
  s.add({"multiphase.hot_K",
         ParamType::Double,
         param_text(d.hot_K),
         0,
         1e12,
         true,
         false,
         {},
         "K",
         "energy.csv phase masses: gas above hot_K is M_hot, gas at or below it M_warm",
         on});
  s.add({"multiphase.hydrogen_fraction",
         ParamType::Double,
         param_text(d.hydrogen_fraction),
         0,
         1,
         true,
         false,
         {},
         "",
         "hydrogen mass fraction X_H for n_H of particles that carry none (x_h = 0)",
         on});
  s.add({"multiphase.evaporation",
         ParamType::Choice,
         "cowie_mckee",
         0,
         0,
         false,
         false,
         {"cowie_mckee", "none"},
         "",
         "cloud <-> gas mass exchange: cowie_mckee (conductive evaporation, classical and "
         "saturated, and condensation for sigma_0 < 0.03, Cowie & McKee 1977, driven by the "
         "kernel-interpolated gas around each cloud; a cloud below cloud_min_mass_fraction of its "
         "gas neighbours' mean mass turns back into gas) | none",
         on});
  s.add({"multiphase.drag_coefficient",
         ParamType::Double,
         param_text(d.drag_coefficient),
         0,
         100,
         false,
         false,
         {},
         "",
         "C_D of the drag F = -1/2 C_D pi R_cl^2 rho_h |v_rel| v_rel of the gas on a cloud (equal "
         "and opposite on the gas neighbours, the work heats them); 0 = no drag",
         on});
  s.add({"multiphase.gas_neighbours",
         ParamType::Int,
         param_text(d.gas_neighbours),
         1,
         128,
         false,
         false,
         {},
         "",
         "N_B gas neighbours of a cloud: the gas interpolated at the cloud, and the receivers of "
         "its evaporation, condensation and drag (kernel weights)",
         on});
  s.add({"multiphase.cloud_min_mass_fraction",
         ParamType::Double,
         param_text(d.cloud_min_mass_fraction),
         0,
         1e6,
         false,
         false,
         {},
         "",
         "with evaporation on, a cloud lighter than this fraction of the mean mass of its gas "
         "neighbours turns back into an SPH particle (PHYSICS.md: half the SPH particle mass)",
         on});
  s.add({"multiphase.condense_limit",
         ParamType::Double,
         param_text(d.condense_limit),
         0,
         1,
         true,
         true,
         {},
         "",
         "the most mass a gas neighbour gives the condensing clouds in one step, as a fraction of "
         "its own mass (below 1: a gas particle never empties)",
         on});
  s.add({"multiphase.evaporation_courant",
         ParamType::Double,
         param_text(d.evaporation_courant),
         0,
         1,
         false,
         false,
         {},
         "",
         "C of the clouds' time-step criterion dt_i <= C m_i / |mdot_i| (evaporation or "
         "condensation at the Cowie & McKee rate of the last step's gas; only with evaporation "
         "cowie_mckee); 0 = no criterion (a cloud may then evaporate completely in one step)",
         on});
}

MultiphaseParams multiphase_params_from(const Config& c) {
  MultiphaseParams p;
  p.kind = parse_multiphase_model(c.get_string("multiphase.model"));
  p.mu_variable = c.get_string("cooling.mu_model") == "variable";
  if (!p.mu_variable) p.mu = c.get_double("cooling.mu");
  p.gamma = c.get_double("eos.gamma");
  if (p.kind == MultiphaseKind::None) return p;
  p.interaction = c.get_string("multiphase.cloud_interaction") == "viscosity"
                      ? CloudInteraction::Viscosity
                      : CloudInteraction::Collisions;
  if (p.interaction == CloudInteraction::Viscosity) {
    p.viscosity_neighbours = int(c.get_int("multiphase.viscosity_neighbours"));
    p.sigma_c_kms = c.get_double("multiphase.sigma_c_kms");
    p.viscosity_alpha = c.get_double("multiphase.viscosity_alpha");
    p.viscosity_beta = c.get_double("multiphase.viscosity_beta");
    p.viscosity_courant = c.get_double("multiphase.viscosity_courant");
  }
  p.T_c_K = c.get_double("multiphase.T_c_K");
  p.n_c_cm3 = c.get_double("multiphase.n_c_cm3");
  p.sigma_cl_Msun_pc2 = c.get_double("multiphase.sigma_cl_Msun_pc2");
  p.restitution = c.get_double("multiphase.restitution");
  p.m_max_Msun = c.get_double("multiphase.m_max_Msun");
  p.hot_K = c.get_double("multiphase.hot_K");
  p.hydrogen_fraction = c.get_double("multiphase.hydrogen_fraction");
  p.evaporation = c.get_string("multiphase.evaporation") == "cowie_mckee";
  p.drag_coefficient = c.get_double("multiphase.drag_coefficient");
  p.gas_neighbours = int(c.get_int("multiphase.gas_neighbours"));
  p.cloud_min_mass_fraction = c.get_double("multiphase.cloud_min_mass_fraction");
  p.condense_limit = c.get_double("multiphase.condense_limit");
  p.evaporation_courant = c.get_double("multiphase.evaporation_courant");
  p.courant = c.get_double("timestep.courant");
  return p;
}

}  // namespace mpsph
