#include "starform/starform_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

StarformKind parse_starform_model(const std::string& name) {
  if (name == "none") return StarformKind::None;
  if (name == "clouds") return StarformKind::Clouds;
  if (name == "probabilistic") return StarformKind::Probabilistic;
  if (name == "katz") return StarformKind::Katz;
  throw Error("unknown starform.model '" + name + "' (valid: none, clouds, probabilistic, katz)");
}

const char* starform_model_name(StarformKind kind) {
  switch (kind) {
    case StarformKind::Clouds:
      return "clouds";
    case StarformKind::Probabilistic:
      return "probabilistic";
    case StarformKind::Katz:
      return "katz";
    default:
      return "none";
  }
}

namespace {

// A positive double (or one in [lo, hi]) of the model `when`.
ParamSpec number(const std::string& path, double def, double lo, bool lo_exclusive, double hi,
                 const std::string& unit, const std::string& doc, const std::string& when) {
  return {path, ParamType::Double, param_text(def), lo, hi, lo_exclusive, false, {}, unit, doc,
          when};
}

}  // namespace

void add_starform_params(Schema& s) {
  const StarformParams d;
  s.add({"starform.model",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "clouds", "probabilistic", "katz"},
         "",
         "star formation (PHYSICS.md section 6, docs/starform.md): none | clouds (Jeans-unstable "
         "cold clouds form stars of eps_sf of their mass; needs multiphase) | probabilistic (a "
         "cloud turns into a star with probability 1 - exp(-eps_ff dt/t_ff); needs multiphase) | "
         "katz (single-phase SPH gas, Katz 1992 criteria)"});
  const std::string clouds = "starform.model=clouds";
  s.add({"starform.clouds_trigger",
         ParamType::Choice,
         "coalescence",
         0,
         0,
         false,
         false,
         {"coalescence", "free_fall"},
         "",
         "clouds: when a cloud above its Jeans mass forms its star: coalescence (when a "
         "coalescence of two clouds makes it, at their centre of mass, PHYSICS.md section 6; "
         "needs multiphase.cloud_interaction collisions) | free_fall (with probability 1 - "
         "exp(-dt/t_ff) per step: one star per free-fall time on average)",
         clouds});
  s.add(number("starform.eps_sf", d.eps_sf, 0, true, 1, "",
               "clouds: fraction of a Jeans-unstable cloud's mass that becomes one star (at each "
               "coalescence, or once per free-fall time: starform.clouds_trigger)",
               clouds));
  s.add(number("starform.cloud_T_K", d.cloud_T_K, 0, true, 1e9, "K",
               "clouds: temperature of the clouds' gas in their Jeans mass", clouds));
  s.add(number("starform.cloud_mu", d.cloud_mu, 0, true, 100, "",
               "clouds: mean molecular weight of the clouds' gas in their Jeans mass (1.22 "
               "neutral atomic, 2.3 molecular)",
               clouds));
  s.add(number("starform.eps_ff", d.eps_ff, 0, true, 1, "",
               "probabilistic: star formation efficiency per cloud free-fall time eps_ff; a cloud "
               "turns into a star with probability 1 - exp(-eps_ff dt / t_ff,cl)",
               "starform.model=probabilistic"));
  const std::string katz = "starform.model=katz";
  s.add(number("starform.c_star", d.c_star, 0, true, 1, "",
               "katz: efficiency c* of the rate c* rho / t_ff; an eligible gas particle turns "
               "into a star with probability 1 - exp(-c* dt / t_ff)",
               katz));
  s.add(number("starform.n_sf_cm3", d.n_sf_cm3, 0, false, 1e12, "cm^-3",
               "katz: hydrogen number density above which gas may form stars", katz));
  s.add(number("starform.T_sf_K", d.T_sf_K, 0, true, 1e12, "K",
               "katz: temperature below which gas may form stars", katz));
  s.add(number("starform.hydrogen_fraction", d.hydrogen_fraction, 0, true, 1, "",
               "katz: hydrogen mass fraction X_H for n_H of particles that carry none (x_h = 0)",
               katz));
}

StarformParams starform_params_from(const Config& c) {
  StarformParams p;
  p.kind = parse_starform_model(c.get_string("starform.model"));
  p.multiphase_on = c.get_string("multiphase.model") != "none";
  if (p.multiphase_on) p.sigma_cl_Msun_pc2 = c.get_double("multiphase.sigma_cl_Msun_pc2");
  p.mu_variable = c.get_string("cooling.mu_model") == "variable";
  if (!p.mu_variable) p.mu = c.get_double("cooling.mu");
  p.gamma = c.get_double("eos.gamma");
  p.cooling_on = c.get_string("cooling.model") != "none";
  switch (p.kind) {
    case StarformKind::None:
      return p;
    case StarformKind::Clouds:
      p.clouds_trigger = c.get_string("starform.clouds_trigger") == "free_fall"
                             ? CloudsTrigger::FreeFall
                             : CloudsTrigger::Coalescence;
      p.eps_sf = c.get_double("starform.eps_sf");
      p.cloud_T_K = c.get_double("starform.cloud_T_K");
      p.cloud_mu = c.get_double("starform.cloud_mu");
      break;
    case StarformKind::Probabilistic:
      p.eps_ff = c.get_double("starform.eps_ff");
      break;
    case StarformKind::Katz:
      p.c_star = c.get_double("starform.c_star");
      p.n_sf_cm3 = c.get_double("starform.n_sf_cm3");
      p.T_sf_K = c.get_double("starform.T_sf_K");
      p.hydrogen_fraction = c.get_double("starform.hydrogen_fraction");
      break;
  }
  if ((p.kind == StarformKind::Clouds || p.kind == StarformKind::Probabilistic) && !p.multiphase_on)
    throw Error(c.origin("starform.model") + ": starform.model " + starform_model_name(p.kind) +
                " forms stars from cold clouds (type 2) and needs multiphase.model "
                "sticky_clouds; for single-phase gas use starform.model katz");
  if (p.kind == StarformKind::Clouds && p.clouds_trigger == CloudsTrigger::Coalescence &&
      c.get_string("multiphase.cloud_interaction") != "collisions")
    throw Error(c.origin("starform.clouds_trigger") +
                ": starform.clouds_trigger coalescence forms stars when two clouds coalesce, "
                "which needs multiphase.cloud_interaction collisions (with " +
                c.get_string("multiphase.cloud_interaction") +
                " the clouds never coalesce); use starform.clouds_trigger free_fall");
  return p;
}

}  // namespace mpsph
