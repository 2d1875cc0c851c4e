// Per-particle time-step limit of the seed (PHYSICS.md section 3):
//   dt_i = C min( sqrt(2 h_i/|a_i|), h_i/|v_i|, h_i/c_i, u_i/|udot_i| )
// with each term switchable, and the optional viscous signal-velocity Courant term
// h_i/v_sig,i (v_sig = c + 1.2 (alpha c + beta max mu), computed in the force loop).
// Collisionless particles use their softening length in place of h (acceleration term only).
//
// Energy term u/|du/dt| (`use_energy`, off by default). In the symmetric energy equation a
// particle is heated and cooled through its neighbours' pressure even as its own u -> 0
// (expanding outer layers of the Evrard sphere), so u/|du/dt| loses its meaning there:
//  - the seed form (both signs) shrank dt 10% per step without bound (CPU, N = 2000: dt fell
//    from 1e-2 to 1e-76 at t = 2.6);
//  - limiting heating only (`energy_heating_only`) still collapsed dt to 1e-45 ... 1e-203 after
//    the bounce at N = 1e5 (H200 run, 2026-11-22), once a particle whose u the limiter had halved
//    towards 0 was heated again.
// With cooling, du/dt is hydro + radiative, so the term bounds dt by the cooling time; the
// cooling stage's implicit integration is stable and accurate without it (docs/cooling.md).
// Positivity is guaranteed by the integrator's limiter instead (u falls at most by half per
// step, GADGET-2's entropy limiter), and the term never bound a healthy run: Evrard N = 2000 to
// t = 3 gives abs(dE/E0) = 6.0e-4 without it and 6.1e-4 with it; Sod L1 errors are identical.
#pragma once

#include <cfloat>
#include <cmath>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

struct TimestepCriteria {
  double courant;
  bool use_acceleration, use_velocity, use_sound, use_energy, use_signal_velocity;
  bool energy_heating_only;
};

struct TimestepInput {
  double h;  // smoothing length (gas) or softening (others)
  Vec3d acc, vel;
  double csound;   // 0 for collisionless particles
  double u, dudt;  // u = 0 for collisionless particles
  double vsig;     // max signal velocity (gas), 0 otherwise
  bool gas;
};

// Returns DBL_MAX when no criterion limits the particle.
MPSPH_HD double particle_timestep(const TimestepInput& in, const TimestepCriteria& c) {
  double dt = DBL_MAX;
  const double a = norm(in.acc);
  if (c.use_acceleration && a > 0.0 && in.h > 0.0) dt = std::fmin(dt, std::sqrt(2.0 * in.h / a));
  if (in.gas) {
    const double v = norm(in.vel);
    if (c.use_velocity && v > 0.0) dt = std::fmin(dt, in.h / v);
    if (c.use_sound && in.csound > 0.0) dt = std::fmin(dt, in.h / in.csound);
    const bool energy_applies = c.energy_heating_only ? in.dudt > 0.0 : in.dudt != 0.0;
    if (c.use_energy && energy_applies && in.u > 0.0) dt = std::fmin(dt, in.u / std::fabs(in.dudt));
    if (c.use_signal_velocity && in.vsig > 0.0) dt = std::fmin(dt, in.h / in.vsig);
  }
  return dt == DBL_MAX ? dt : c.courant * dt;
}

// Softening length per particle type: the length scale of a collisionless particle's criterion.
// gas_sph false: the run has too few gas particles left for SPH (N_B or fewer; the rest went into
// sinks): they move without pressure forces and take the collisionless criterion with eps[0] (the
// smoothing lengths of their last SPH step would set needlessly short steps).
struct SofteningByType {
  double eps[6];
  bool gas_sph = true;
};

inline SofteningByType softening_by_type(const GravityParams& gp, bool gas_sph = true) {
  SofteningByType s{};
  for (int t = 0; t < 6; ++t) s.eps[t] = gp.softening[t];
  s.gas_sph = gas_sph;
  return s;
}

inline TimestepCriteria timestep_criteria(const TimestepParams& tp) {
  return {tp.courant,    tp.use_acceleration,    tp.use_velocity,       tp.use_sound,
          tp.use_energy, tp.use_signal_velocity, tp.energy_heating_only};
}

// The criteria's inputs for particle i of the store: SPH fields for gas (i < n_gas), the
// softening of its type otherwise.
MPSPH_HD TimestepInput timestep_input(const ParticleView& s, std::size_t i,
                                      const SofteningByType& soft) {
  TimestepInput in{};
  // A particle removed since the last order stage (mass 0, dropped there) limits nothing: h = 0.
  if (s.type[i] >= kNumTypes) return in;
  in.gas = i < s.n_gas && soft.gas_sph;
  in.acc = s.acc[i];
  in.vel = s.vel[i];
  if (in.gas) {
    in.h = s.h[i];
    in.csound = s.csound[i];
    in.u = s.u[i];
    in.dudt = s.dudt[i] + s.dudt_cool[i];  // hydro + radiative (0 without cooling)
    in.vsig = s.vsig[i];
  } else {
    in.h = soft.eps[s.type[i]];
  }
  return in;
}

}  // namespace mpsph
