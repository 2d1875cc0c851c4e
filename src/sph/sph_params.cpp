#include "sph/sph_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

void add_sph_params(Schema& s) {
  const SphParams d;
  s.add({"sph.n_neighbours",
         ParamType::Int,
         param_text(d.n_neighbours),
         1,
         10000,
         false,
         false,
         {},
         "",
         "N_B: number of gas neighbours inside 2h (smoothing-length target)"});
  s.add({"sph.h_min",
         ParamType::Double,
         param_text(d.h_min),
         0,
         1e300,
         false,
         false,
         {},
         "code length",
         "floor on the smoothing length (0 = none)"});
  s.add({"sph.alpha",
         ParamType::Double,
         param_text(d.alpha),
         0,
         10,
         false,
         false,
         {},
         "",
         "Monaghan-Gingold viscosity alpha"});
  s.add({"sph.beta",
         ParamType::Double,
         param_text(d.beta),
         0,
         20,
         false,
         false,
         {},
         "",
         "Monaghan-Gingold viscosity beta"});
  s.add({"sph.eps_visc",
         ParamType::Double,
         param_text(d.eps_visc),
         0,
         1,
         true,
         false,
         {},
         "",
         "eps in mu_ij = h_ij v_ij.r_ij / (r_ij^2 + eps h_ij^2)"});
  s.add({"sph.balsara",
         ParamType::Bool,
         param_text(d.balsara),
         0,
         0,
         false,
         false,
         {},
         "",
         "multiply the viscosity by the Balsara (1995) switch"});
  s.add({"sph.balsara_eps",
         ParamType::Double,
         param_text(d.balsara_eps),
         0,
         1,
         false,
         false,
         {},
         "",
         "eps' in f_i = |div v|/(|div v| + |curl v| + eps' c_i/h_i)"});
  s.add({"sph.energy_equation",
         ParamType::Choice,
         "own_pressure",
         0,
         0,
         false,
         false,
         {"symmetric", "own_pressure"},
         "",
         "du_i/dt pressure term: 1/2 (P_i/rho_i^2 + P_j/rho_j^2) (the seed's) | P_i/rho_i^2 "
         "(GADGET-2/SWIFT form, the default: no cold particle driven below u = 0 by hotter "
         "neighbours, 95x smaller Evrard energy error at N = 1e5; docs/validation.md)"});
}

SphParams sph_params_from(const Config& c) {
  SphParams p;
  p.n_neighbours = static_cast<int>(c.get_int("sph.n_neighbours"));
  p.h_min = c.get_double("sph.h_min");
  p.alpha = c.get_double("sph.alpha");
  p.beta = c.get_double("sph.beta");
  p.eps_visc = c.get_double("sph.eps_visc");
  p.balsara = c.get_bool("sph.balsara");
  p.balsara_eps = c.get_double("sph.balsara_eps");
  p.energy_own_pressure = c.get_string("sph.energy_equation") == "own_pressure";
  return p;
}

}  // namespace mpsph
