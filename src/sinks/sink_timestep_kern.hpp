// Sinks follow the steps of the gas near them (block time steps; docs/sinks.md), the pure
// per-particle functions shared by the OpenMP driver (sinks.cpp) and the CUDA driver
// (sinks_gpu.cu).
//
// A sink and the gas around it exert equal and opposite gravitational forces, but each side is
// kicked with the force at the ends of its own step: when the gas within a few h_acc orbits on
// steps much shorter than the sink's, the sink integrates that rapidly changing force with its
// one long step and the pair's momentum no longer balances. The sink has a large share of the
// mass there, so the error is large (a collapsing isothermal sphere with 400 particles: total
// momentum 3e-3 by t = 1, against 1e-16 under the global scheme). Hence: no sink takes a longer
// step than any gas particle within sinks.wake_radius h_acc of it. An active sink's dt_limit is cut
// to that gas's shortest step; an inactive sink whose gas took a deeper rung is woken like gas
// under the limiter (wake_particle: its step ends at the first boundary of that rung). The
// reverse direction, gas as fast as the sink near it, is the sinks stage's wake_near_sinks.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

// The step gas particle j takes next (code time) as seen at the time-step stage of tick `now`
// (kAllActive: every particle is active) in a segment of `length`: its limited step when its step
// ends now, the step of its current rung otherwise.
MPSPH_HD double gas_step_near_sink(const ParticleView& v, std::size_t j, int64_t now,
                                   double length) {
  return now == kAllActive || v.ti_end[j] == now ? v.dt_limit[j] : ldexp(length, -int(v.rung[j]));
}

// Sink s, with dt_gas the shortest gas_step_near_sink() within the radius (no gas there: leave
// it): an active sink takes no longer step; an inactive one on a longer step is woken.
MPSPH_HD void follow_gas_step(const ParticleView& v, std::size_t s, double dt_gas, int64_t now,
                              double length) {
  if (now == kAllActive || v.ti_end[s] == now) {
    if (dt_gas < v.dt_limit[s]) v.dt_limit[s] = dt_gas;
    return;
  }
  const int want = rung_for_dt(dt_gas, length);
  if (want <= int(v.rung[s])) return;
  if (want > v.rung_wake[s]) v.rung_wake[s] = int32_t(want);
  wake_particle(v, s, now);
}

}  // namespace mpsph
