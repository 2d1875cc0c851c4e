#include "sinks/sink_params.hpp"

#include <string>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/eos_params.hpp"

namespace mpsph {

SinkKind parse_sink_model(const std::string_view& name) {
  if (name == "none") return SinkKind::None;
  if (name == "bate95") return SinkKind::Bate95;
  throw Error("unknown sinks.model '" + std::string(name) + "' (valid: none, bate95)");
}

void add_sink_params(Schema& s) {
  const SinkParams d;
  const std::string bate95 = "sinks.model=bate95";
  s.add({"sinks.model",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "bate95"},
         "",
         "sink particles (type 5): none | bate95 (creation and accretion of Bate, Bonnell & "
         "Price 1995; docs/sinks.md)"});
  s.add({"sinks.rho_sink",
         ParamType::Double,
         param_text(d.rho_sink),
         0,
         1e300,
         false,
         false,
         {},
         "code density",
         "density above which a gas particle may become a sink; 0 = where the Jeans mass is "
         "2 N_B m_p (Bate & Burkert 1997) with the EOS sound speed and the largest gas mass",
         bate95});
  s.add({"sinks.h_acc",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "accretion radius: bound gas inside it falls into the sink; also the radius of the "
         "group a new sink is tested on",
         bate95});
  s.add({"sinks.r_crit",
         ParamType::Double,
         param_text(d.r_crit),
         0,
         1e300,
         false,
         false,
         {},
         "code length",
         "no sink forms within r_crit of an existing one (at least h_acc); 0 = 2 h_acc",
         bate95});
  s.add({"sinks.wake_radius",
         ParamType::Double,
         param_text(d.wake_radius),
         1,
         1e3,
         false,
         false,
         {},
         "h_acc",
         "block steps: gas within this many h_acc of a sink takes steps no longer than the "
         "sink's, so it is active whenever the sink is",
         bate95});
  s.add({"sinks.merge_radius",
         ParamType::Double,
         param_text(d.merge_radius),
         0,
         1e3,
         false,
         false,
         {},
         "h_acc",
         "two sinks closer than this many h_acc and bound as a pair merge (mass, momentum and "
         "angular momentum conserved; the lower id survives); 0 = no merging",
         bate95});
}

SinkParams sink_params_from(const Config& c) {
  SinkParams p;
  p.kind = parse_sink_model(c.get_string("sinks.model"));
  if (!p.enabled()) return p;
  p.rho_sink = c.get_double("sinks.rho_sink");
  p.h_acc = c.get_double("sinks.h_acc");
  p.r_crit = c.get_double("sinks.r_crit");
  p.wake_radius = c.get_double("sinks.wake_radius");
  p.merge_radius = c.get_double("sinks.merge_radius");
  p.n_neighbours = static_cast<int>(c.get_int("sph.n_neighbours"));
  const EosParams eos = eos_params_from(c);
  p.sound_speed = eos.kind == EosKind::Adiabatic ? 0.0 : eos.sound_speed;
  if (p.r_crit > 0.0 && p.r_crit < p.h_acc)
    throw Error(c.origin("sinks.r_crit") + ": sinks.r_crit = " + param_text(p.r_crit) +
                " is below sinks.h_acc = " + param_text(p.h_acc) +
                ": a new sink would form inside an existing sink's accretion radius");
  if (p.rho_sink == 0.0 && !(p.sound_speed > 0.0))
    throw Error(c.origin("sinks.rho_sink") +
                ": sinks.rho_sink = 0 (from the resolution) needs the sound speed of an "
                "isothermal, barotropic or piecewise EOS; with eos.type adiabatic set "
                "sinks.rho_sink");
  if (!c.get_bool("gravity.enabled"))
    throw Error(c.origin("sinks.model") +
                ": sinks.model bate95 needs gravity (gravity.enabled: true): creation tests "
                "the potential minimum and the binding energy");
  // A sink's time-step criterion is C sqrt(2 eps_5 / |a|): without a softening it has none and
  // would take the longest step, waking the gas around it only that rarely.
  if (!(gravity_params_from(c).softening[kSink] > 0.0))
    throw Error(c.origin("gravity.softening") +
                ": sinks.model bate95 needs a positive softening for sinks (type 5, the sixth "
                "value of gravity.softening): it sets their time-step criterion");
  return p;
}

}  // namespace mpsph
