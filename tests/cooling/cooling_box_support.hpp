// Driving the cooling box the way the simulation's corrector does, for the cooling tests.
#pragma once

#include <cmath>

#include "cooling/cooling.hpp"
#include "core/particle_store.hpp"

namespace mpsph::test {

// One corrector step with hydro du/dt = a (constant): u0 <- u, then apply_cooling.
inline CoolingStepResult cooling_step(ParticleStore& s, const CoolingModel& m, double dt,
                                      double a = 0.0) {
  for (std::size_t i = 0; i < s.size(); ++i) s.u0[i] = s.u[i], s.dudt0[i] = s.dudt[i] = a;
  return apply_cooling(s, m, dt);
}

// u/|du/dt_rad| of particle i.
inline double cooling_time_of(const ParticleStore& s, const CoolingModel& m, std::size_t i = 0) {
  const CoolingKernelParams p = m.kernel_params();
  const CoolingGas g = cooling_gas(p, s.rho[i], s.x_h[i], s.z_fe[i]);
  return cooling_time(s.u[i], radiative_dudt(p, g, s.u[i]));
}

// Time at which particle 0 of the box cools to T_target, stepping with dt: whole steps until the
// one that crosses, then the crossing inside it by bisection on the length of a step from its
// start (to 2^-60 of dt). HUGE_VAL if not reached within 10^6 steps.
inline double time_to_reach(const ParticleStore& start, const CoolingModel& m, double dt,
                            double T_target) {
  ParticleStore s = start;
  double t = 0.0;
  for (long n = 0;; ++n) {
    if (n == 1000000) return HUGE_VAL;  // never reached
    ParticleStore next = s;
    cooling_step(next, m, dt);
    if (m.temperature(next.u[0]) <= T_target) break;
    s = std::move(next);
    t += dt;
  }
  double lo = 0.0, hi = dt;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    ParticleStore probe = s;
    cooling_step(probe, m, mid);
    (m.temperature(probe.u[0]) > T_target ? lo : hi) = mid;
  }
  return t + 0.5 * (lo + hi);
}

}  // namespace mpsph::test
