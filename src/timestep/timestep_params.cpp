#include "timestep/timestep_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/param_format.hpp"

namespace mpsph {

void add_timestep_params(Schema& s) {
  const TimestepParams d;
  s.add({"timestep.courant",
         ParamType::Double,
         param_text(d.courant),
         0,
         1,
         true,
         false,
         {},
         "",
         "C in dt = C min(...)"});
  s.add({"timestep.use_acceleration",
         ParamType::Bool,
         param_text(d.use_acceleration),
         0,
         0,
         false,
         false,
         {},
         "",
         "criterion sqrt(2 h/|a|) (sqrt(2 eps/|a|) for non-gas particles)"});
  s.add({"timestep.use_velocity",
         ParamType::Bool,
         param_text(d.use_velocity),
         0,
         0,
         false,
         false,
         {},
         "",
         "criterion h/|v| (seed; not Galilean invariant)"});
  s.add({"timestep.use_sound",
         ParamType::Bool,
         param_text(d.use_sound),
         0,
         0,
         false,
         false,
         {},
         "",
         "criterion h/c"});
  s.add({"timestep.use_energy",
         ParamType::Bool,
         param_text(d.use_energy),
         0,
         0,
         false,
         false,
         {},
         "",
         "criterion u/|du/dt| (seed; off by default: the u >= u_old/2 limiter keeps u "
         "positive and this term can stall a run, see timestep_kern.hpp)"});
  s.add({"timestep.use_signal_velocity",
         ParamType::Bool,
         param_text(d.use_signal_velocity),
         0,
         0,
         false,
         false,
         {},
         "",
         "criterion h/(c + 1.2 (alpha c + beta max mu)) (viscous Courant)"});
  s.add({"timestep.energy_heating_only",
         ParamType::Bool,
         param_text(d.energy_heating_only),
         0,
         0,
         false,
         false,
         {},
         "",
         "apply u/|du/dt| to heating only (cooling is kept positive by the u >= u_old/2 limiter); "
         "false = the seed form for both signs"});
  s.add({"timestep.dt_max",
         ParamType::Double,
         param_text(d.dt_max),
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "largest allowed step, also the block scheme's synchronisation segment (energy.csv rows "
         "and checkpoints come at segment ends); 0 = no limit under the global scheme, "
         "run.t_end / " +
             std::to_string(kBlockSegmentsPerRun) + " under the block scheme"});
  s.add({"timestep.scheme",
         ParamType::Choice,
         d.scheme == TimestepScheme::Block ? "block" : "global",
         0,
         0,
         false,
         false,
         {"global", "block"},
         "",
         "global: one step for all particles; block: individual power-of-two steps "
         "(docs/timestepping.md)"});
  s.add({"timestep.limiter_factor",
         ParamType::Int,
         param_text(long(d.limiter_factor)),
         0,
         1024,
         false,
         false,
         {},
         "",
         "block scheme: no gas step more than this factor longer than a neighbour's, with wake-up "
         "(Saitoh & Makino 2009); a power of two, 0 = no limiter",
         "timestep.scheme=block"});
  s.add({"timestep.dt_min",
         ParamType::Double,
         param_text(d.dt_min),
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "stop with an error if dt falls below this (0 = never)"});
}

TimestepParams timestep_params_from(const Config& c) {
  TimestepParams p;
  p.courant = c.get_double("timestep.courant");
  p.use_acceleration = c.get_bool("timestep.use_acceleration");
  p.use_velocity = c.get_bool("timestep.use_velocity");
  p.use_sound = c.get_bool("timestep.use_sound");
  p.use_energy = c.get_bool("timestep.use_energy");
  p.use_signal_velocity = c.get_bool("timestep.use_signal_velocity");
  p.energy_heating_only = c.get_bool("timestep.energy_heating_only");
  p.dt_max = c.get_double("timestep.dt_max");
  p.dt_min = c.get_double("timestep.dt_min");
  p.scheme =
      c.get_string("timestep.scheme") == "block" ? TimestepScheme::Block : TimestepScheme::Global;
  if (p.scheme == TimestepScheme::Block) {
    // Without dt_max every segment would be one global step (all particles on rung 0), a block
    // run in name only: the block scheme then takes t_end / 64 (Phantom-like: a few per cent of
    // the run, the Evrard collapse's validated 0.05 at t_end = 3).
    if (!(p.dt_max > 0)) p.dt_max = c.get_double("run.t_end") / kBlockSegmentsPerRun;
    p.limiter_factor = int(c.get_int("timestep.limiter_factor"));
    const int f = p.limiter_factor;
    if (f != 0 && (f & (f - 1)) != 0)
      throw Error("timestep.limiter_factor = " + std::to_string(f) +
                  " must be a power of two (1, 2, 4, ...) or 0 for no limiter");
  }
  return p;
}

std::string describe_timestepping(const TimestepParams& p, const Config& c) {
  const std::string dt_max = format_number("%.6g", p.dt_max);
  if (p.scheme == TimestepScheme::Global)
    return "time steps: global (one step for all particles)" +
           (p.dt_max > 0 ? ", dt_max = " + dt_max : std::string());
  const bool derived = !(c.get_double("timestep.dt_max") > 0);
  return "time steps: block (power-of-two rungs), longest step and segment dt_max = " + dt_max +
         (derived ? " (run.t_end / " + std::to_string(kBlockSegmentsPerRun) +
                        ": timestep.dt_max not set)"
                  : std::string()) +
         ", limiter factor " +
         (p.limiter_factor > 0 ? std::to_string(p.limiter_factor) : std::string("off"));
}

}  // namespace mpsph
