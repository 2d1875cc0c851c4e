#include "cooling/cooling_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

CoolingKind parse_cooling_model(const std::string& name) {
  if (name == "none") return CoolingKind::None;
  if (name == "sd93") return CoolingKind::Sd93;
  throw Error("unknown cooling.model '" + name + "' (valid: none, sd93)");
}

void add_cooling_params(Schema& s) {
  const CoolingParams d;
  const std::string sd93 = "cooling.model=sd93";
  s.add({"cooling.model",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "sd93"},
         "",
         "radiative cooling: none | sd93 (Sutherland & Dopita 1993 CIE above 1e4 K, Koyama & "
         "Inutsuka 2002 below)"});
  s.add({"cooling.table_dir",
         ParamType::String,
         d.table_dir,
         0,
         0,
         false,
         false,
         {},
         "",
         "directory of the SD93 CIE tables (mzero.cie, m-30.cie, ...); empty = next to the "
         "executable, the install prefix, then the source tree",
         sd93});
  s.add({"cooling.metals",
         ParamType::Choice,
         "fixed",
         0,
         0,
         false,
         false,
         {"fixed", "particles"},
         "",
         "fixed: every particle has cooling.metallicity; particles: [Fe/H] and X_H from each "
         "particle's IronMassFraction and HydrogenMassFraction",
         sd93});
  s.add({"cooling.metallicity",
         ParamType::Double,
         param_text(d.metallicity),
         -99,
         1,
         false,
         false,
         {},
         "dex",
         "[Fe/H] (fixed), or of particles without metal fields; below -3 the rate tends linearly "
         "in Z to the metal-free table",
         sd93});
  s.add({"cooling.hydrogen_fraction",
         ParamType::Double,
         param_text(d.hydrogen_fraction),
         0,
         1,
         true,
         false,
         {},
         "",
         "hydrogen mass fraction X_H where particles carry none",
         sd93});
  s.add({"cooling.floor_K",
         ParamType::Double,
         param_text(d.floor_K),
         0,
         1e9,
         false,
         false,
         {},
         "K",
         "temperature floor",
         sd93});
  s.add({"cooling.heating",
         ParamType::Double,
         param_text(d.heating),
         0,
         1e-15,
         false,
         false,
         {},
         "erg/s",
         "heating rate Gamma per hydrogen atom (2e-26 in Koyama & Inutsuka 2002; 0 = off)",
         sd93});
  s.add({"cooling.tolerance",
         ParamType::Double,
         param_text(d.tolerance),
         1e-8,
         0.1,
         false,
         false,
         {},
         "",
         "relative local error of u per implicit substep (sets the substep count)",
         sd93});
  s.add({"cooling.mu_model",
         ParamType::Choice,
         "variable",
         0,
         0,
         false,
         false,
         {"variable", "constant"},
         "",
         "mean molecular weight for T(u): variable = 1.22 below 8000 K, 0.59 above 1.5e4 K, "
         "linear in T between; constant = cooling.mu"});
  s.add({"cooling.mu",
         ParamType::Double,
         param_text(d.mu),
         0,
         100,
         true,
         false,
         {},
         "",
         "constant mean molecular weight (0.59 ionised, 1.22 neutral, 2.3 molecular)",
         "cooling.mu_model=constant"});
}

CoolingParams cooling_params_from(const Config& c) {
  CoolingParams p;
  p.kind = parse_cooling_model(c.get_string("cooling.model"));
  p.mu_variable = c.get_string("cooling.mu_model") == "variable";
  if (!p.mu_variable) p.mu = c.get_double("cooling.mu");
  p.gamma = c.get_double("eos.gamma");
  if (p.kind == CoolingKind::Sd93) {
    p.table_dir = c.get_string("cooling.table_dir");
    p.metals =
        c.get_string("cooling.metals") == "particles" ? MetalSource::Particles : MetalSource::Fixed;
    p.metallicity = c.get_double("cooling.metallicity");
    p.hydrogen_fraction = c.get_double("cooling.hydrogen_fraction");
    p.floor_K = c.get_double("cooling.floor_K");
    p.heating = c.get_double("cooling.heating");
    p.tolerance = c.get_double("cooling.tolerance");
  }
  return p;
}

}  // namespace mpsph
