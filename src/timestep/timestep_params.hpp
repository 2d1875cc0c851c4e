// Time-step criteria of the seed scheme (PHYSICS.md section 3); member initialisers are defaults.
//   dt = C min( sqrt(2 h/|a|), h/|v|, h/c, u/|du/dt| ), each term switchable, plus the optional
//   viscous signal-velocity Courant term h/(c + 1.2 (alpha c + beta max mu)).
#pragma once

#include <string>

namespace mpsph {

class Config;
class Schema;

enum class TimestepScheme { Global, Block };

// The block scheme's segment when timestep.dt_max is not set: run.t_end / 64.
constexpr int kBlockSegmentsPerRun = 64;

struct TimestepParams {
  double courant = 0.1;  // C
  bool use_acceleration = true;
  bool use_velocity = true;  // h/|v|: not Galilean invariant (seed); switch off for moving frames
  bool use_sound = true;
  bool use_energy = false;  // seed: true; off by default, see timestep_kern.hpp
  bool use_signal_velocity = false;
  bool energy_heating_only = true;  // u/|du/dt| limits heating only (see timestep_kern.hpp)
  // Code time; 0 = no maximum (global), run.t_end / kBlockSegmentsPerRun (block).
  double dt_max = 0.0;
  double dt_min = 0.0;  // abort when dt falls below this (0 = never)
  TimestepScheme scheme = TimestepScheme::Block;
  int limiter_factor = 4;  // block: power of two; 0 = no limiter
  // log2 of limiter_factor (-1: no limiter).
  int limiter_shift() const {
    int d = -1;
    for (int f = limiter_factor; f > 0; f >>= 1) ++d;
    return d;
  }
};

void add_timestep_params(Schema& schema);
TimestepParams timestep_params_from(const Config& cfg);
// One log line: the scheme, the longest step (and where it came from) and the limiter.
std::string describe_timestepping(const TimestepParams& p, const Config& cfg);

}  // namespace mpsph
