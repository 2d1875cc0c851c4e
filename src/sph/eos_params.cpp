#include "sph/eos_params.hpp"

#include <cmath>
#include <string>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/units.hpp"

namespace mpsph {

namespace {
constexpr const char* kNonAdiabatic[] = {"isothermal", "barotropic", "piecewise"};
}  // namespace

void add_eos_params(Schema& s) {
  const EosParams e;
  s.add({"eos.type",
         ParamType::Choice,
         "adiabatic",
         0,
         0,
         false,
         false,
         {"adiabatic", "isothermal", "barotropic", "piecewise"},
         "",
         "equation of state (docs/eos.md): adiabatic P=(gamma-1) rho u | isothermal P=c_s^2 rho | "
         "barotropic P=c_s^2 rho [1+(rho/rho_crit)^(2/5)] | piecewise P=K rho^eta, eta = 1, 7/5, "
         "1.1, 5/3 above rho_1, rho_2, rho_3 (Bate, Bonnell & Bromm 2003). Non-adiabatic: u is "
         "set from the EOS, u = P/((gamma-1) rho)"});
  s.add({"eos.gamma",
         ParamType::Double,
         param_text(e.gamma),
         1,
         10,
         true,
         false,
         {},
         "",
         "adiabatic index (non-adiabatic EOSs: only converts P/rho to u = P/((gamma-1) rho))"});
  for (const char* t : kNonAdiabatic) {
    const std::string when = std::string("eos.type=") + t;
    s.add({"eos.sound_speed_from",
           ParamType::Choice,
           "value",
           0,
           0,
           false,
           false,
           {"value", "temperature"},
           "",
           "isothermal sound speed from eos.sound_speed (value) or from eos.temperature and "
           "eos.mu (temperature: c_s^2 = k_B T/(mu m_H)); exactly one of the two is allowed",
           when});
  }
  s.add({"eos.sound_speed",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "code velocity",
         "isothermal sound speed c_s (of the gas below the first break density)",
         "eos.sound_speed_from=value"});
  s.add({"eos.temperature",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "K",
         "isothermal temperature T: c_s^2 = k_B T/(mu m_H) (needs physical units)",
         "eos.sound_speed_from=temperature"});
  s.add({"eos.mu",
         ParamType::Double,
         std::nullopt,
         0,
         1e3,
         true,
         false,
         {},
         "",
         "mean molecular weight in m_H of c_s^2 = k_B T/(mu m_H) (2.3 molecular, 1.22 neutral "
         "atomic, 0.59 ionised)",
         "eos.sound_speed_from=temperature"});
  s.add({"eos.rho_crit",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "code density",
         "barotropic break density rho_crit (~1e-14 g/cm^3 for molecular clouds)",
         "eos.type=barotropic"});
  const char* piece_doc[3] = {
      "piecewise: density where eta goes from 1 to 7/5 (BBB03: 1e-13 g/cm^3)",
      "piecewise: density where eta goes from 7/5 to 1.1 (1e-10 g/cm^3, docs/eos.md)",
      "piecewise: density where eta goes from 1.1 to 5/3 (1e-3 g/cm^3, docs/eos.md)"};
  for (int k = 0; k < 3; ++k)
    s.add({"eos.rho_" + std::to_string(k + 1),
           ParamType::Double,
           std::nullopt,
           0,
           1e300,
           true,
           false,
           {},
           "code density",
           piece_doc[k],
           "eos.type=piecewise"});
}

const char* eos_type_name(EosKind kind) {
  switch (kind) {
    case EosKind::Adiabatic:
      return "adiabatic";
    case EosKind::Isothermal:
      return "isothermal";
    case EosKind::Barotropic:
      return "barotropic";
    case EosKind::Piecewise:
      return "piecewise";
  }
  return "?";
}

EosParams eos_params_from(const Config& c) {
  EosParams e;
  const std::string t = c.get_string("eos.type");
  e.gamma = c.get_double("eos.gamma");
  if (t == "adiabatic") {
    e.kind = EosKind::Adiabatic;
    return e;
  }
  e.kind = t == "isothermal"   ? EosKind::Isothermal
           : t == "barotropic" ? EosKind::Barotropic
                               : EosKind::Piecewise;
  if (c.get_string("eos.sound_speed_from") == "value") {
    e.sound_speed = c.get_double("eos.sound_speed");
  } else {
    const UnitSystem u = UnitSystem::from_config(c);
    if (u.nbody)
      throw Error(c.origin("eos.temperature") +
                  ": eos.temperature needs a physical unit system (units.system: physical) to "
                  "give c_s^2 = k_B T/(mu m_H) in code units; in N-body units give "
                  "eos.sound_speed_from: value and eos.sound_speed");
    const double cs_cgs =
        std::sqrt(cgs::k_B * c.get_double("eos.temperature") / (c.get_double("eos.mu") * cgs::m_H));
    e.sound_speed = cs_cgs / u.velocity_cgs;
  }
  if (e.kind == EosKind::Barotropic) e.rho_crit = c.get_double("eos.rho_crit");
  if (e.kind == EosKind::Piecewise) {
    e.rho_1 = c.get_double("eos.rho_1");
    e.rho_2 = c.get_double("eos.rho_2");
    e.rho_3 = c.get_double("eos.rho_3");
    if (!(e.rho_1 < e.rho_2 && e.rho_2 < e.rho_3))
      throw Error(c.origin("eos.rho_1") + ": eos.type piecewise needs rho_1 < rho_2 < rho_3 (got " +
                  param_text(e.rho_1) + ", " + param_text(e.rho_2) + ", " + param_text(e.rho_3) +
                  ")");
  }
  return e;
}

}  // namespace mpsph
