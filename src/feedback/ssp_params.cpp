#include "feedback/ssp_params.hpp"

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

FeedbackKind parse_feedback_model(const std::string& name) {
  if (name == "none") return FeedbackKind::None;
  if (name == "ssp") return FeedbackKind::Ssp;
  throw Error("unknown feedback.model '" + name + "' (valid: none, ssp)");
}

ImfKind parse_imf(const std::string& name) {
  if (name == "salpeter") return ImfKind::Salpeter;
  if (name == "kroupa") return ImfKind::Kroupa;
  throw Error("unknown IMF '" + name + "' (valid: salpeter, kroupa)");
}

YieldKind parse_yields(const std::string& name) {
  if (name == "rvn96") return YieldKind::Rvn96;
  if (name == "ww95") return YieldKind::Ww95;
  throw Error("unknown SN II yields '" + name + "' (valid: rvn96, ww95)");
}

SnIaKind parse_snia(const std::string& name) {
  if (name == "binary") return SnIaKind::Binary;
  if (name == "dtd") return SnIaKind::Dtd;
  throw Error("unknown SN Ia model '" + name + "' (valid: binary, dtd)");
}

void add_feedback_params(Schema& s) {
  const FeedbackParams d;
  const std::string ssp = "feedback.model=ssp";
  const std::string binary = "feedback.snia=binary";
  const std::string dtd = "feedback.snia=dtd";
  s.add({"feedback.model",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "ssp"},
         "",
         "stellar feedback: none | ssp (each star particle of type 3 or 4 is a simple stellar "
         "population returning mass, momentum, O, Fe and SN energy to its gas neighbours; "
         "docs/feedback.md)"});
  s.add({"feedback.imf",
         ParamType::Choice,
         "salpeter",
         0,
         0,
         false,
         false,
         {"salpeter", "kroupa"},
         "",
         "initial mass function over 0.1-100 Msun: salpeter (1955) | kroupa (2001)",
         ssp});
  s.add({"feedback.yields",
         ParamType::Choice,
         "rvn96",
         0,
         0,
         false,
         false,
         {"rvn96", "ww95"},
         "",
         "SN II oxygen and iron: rvn96 (Raiteri, Villata & Navarro 1996 fits) | ww95 (Woosley & "
         "Weaver 1995 tables, data/yields/WW95)",
         ssp});
  s.add({"feedback.yields_dir",
         ParamType::String,
         "",
         0,
         0,
         false,
         false,
         {},
         "",
         "directory of the WW95 tables (FeH0_explosive_o.dat, ...); empty = next to the "
         "executable, the install prefix, then the source tree",
         "feedback.yields=ww95"});
  s.add({"feedback.snia",
         ParamType::Choice,
         "binary",
         0,
         0,
         false,
         false,
         {"binary", "dtd"},
         "",
         "SN Ia: binary (RVN96 / Greggio & Renzini 1983 binaries of 3-16 Msun) | dtd (t^-1 "
         "delay-time distribution)",
         ssp});
  s.add({"feedback.snia_binary_fraction",
         ParamType::Double,
         param_text(d.ssp.snia_binary_fraction),
         0,
         1,
         false,
         false,
         {},
         "",
         "fraction of the IMF between 3 and 16 Msun in SN Ia progenitor binaries",
         binary});
  s.add({"feedback.snia_dtd_number",
         ParamType::Double,
         param_text(d.ssp.snia_dtd_number),
         0,
         0.1,
         false,
         false,
         {},
         "1/Msun",
         "SN Ia per Msun formed between snia_dtd_t_min_myr and snia_dtd_t_max_myr (Maoz, "
         "Mannucci & Brandt 2012: 1.3e-3)",
         dtd});
  s.add({"feedback.snia_dtd_t_min_myr",
         ParamType::Double,
         param_text(d.ssp.snia_dtd_t_min_yr / 1e6),
         1,
         1e4,
         false,
         false,
         {},
         "Myr",
         "age of the first SN Ia",
         dtd});
  s.add({"feedback.snia_dtd_t_max_myr",
         ParamType::Double,
         param_text(d.ssp.snia_dtd_t_max_yr / 1e6),
         1,
         1e5,
         false,
         false,
         {},
         "Myr",
         "end of the interval over which snia_dtd_number SN Ia explode",
         dtd});
  s.add({"feedback.sn_energy_erg",
         ParamType::Double,
         param_text(d.ssp.e_sn_erg),
         0,
         1e54,
         false,
         false,
         {},
         "erg",
         "energy of one supernova (II or Ia) given to the gas as heat",
         ssp});
  s.add({"feedback.n_neighbours",
         ParamType::Int,
         param_text(d.n_neighbours),
         1,
         kFeedbackMaxNeighbours,
         false,
         false,
         {},
         "",
         "N_B: the nearest gas particles that share a star's release, with weights "
         "m_j W(r_j, h*) / sum_k m_k W(r_k, h*)",
         ssp});
}

FeedbackParams ssp_params_from(const Config& c) {
  FeedbackParams p;
  p.kind = parse_feedback_model(c.get_string("feedback.model"));
  if (!p.enabled()) return p;
  p.ssp.imf = parse_imf(c.get_string("feedback.imf"));
  p.ssp.yields = parse_yields(c.get_string("feedback.yields"));
  if (p.ssp.yields == YieldKind::Ww95) p.yields_dir = c.get_string("feedback.yields_dir");
  p.ssp.snia = parse_snia(c.get_string("feedback.snia"));
  if (p.ssp.snia == SnIaKind::Binary) {
    p.ssp.snia_binary_fraction = c.get_double("feedback.snia_binary_fraction");
  } else {
    p.ssp.snia_dtd_number = c.get_double("feedback.snia_dtd_number");
    p.ssp.snia_dtd_t_min_yr = 1e6 * c.get_double("feedback.snia_dtd_t_min_myr");
    p.ssp.snia_dtd_t_max_yr = 1e6 * c.get_double("feedback.snia_dtd_t_max_myr");
    if (!(p.ssp.snia_dtd_t_max_yr > p.ssp.snia_dtd_t_min_yr))
      throw Error(c.origin("feedback.snia_dtd_t_max_myr") +
                  ": feedback.snia_dtd_t_max_myr must exceed feedback.snia_dtd_t_min_myr");
  }
  p.ssp.e_sn_erg = c.get_double("feedback.sn_energy_erg");
  p.n_neighbours = int(c.get_int("feedback.n_neighbours"));
  return p;
}

}  // namespace mpsph
