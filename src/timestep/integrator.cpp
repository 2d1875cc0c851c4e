#include "timestep/integrator.hpp"

#include <algorithm>
#include <cfloat>

#include "timestep/integrator_kern.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

void predict_step(ParticleStore& s, double dt, const Box& box) {
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  const auto n_gas = static_cast<std::ptrdiff_t>(s.n_gas());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    s.pos0[i] = s.pos[i];
    s.vel0[i] = s.vel[i];
    s.acc0[i] = s.acc[i];
    const KinematicState p = predict_kinematics(s.pos[i], s.vel[i], s.acc[i], dt);
    s.pos[i] = wrap_position(p.pos, box);
    s.vel[i] = p.vel;
    if (i < n_gas) {
      s.u0[i] = s.u[i];
      s.dudt0[i] = s.dudt[i];
      s.u[i] = predict_energy(s.u[i], s.dudt[i], dt);
    }
  }
}

void correct_step(ParticleStore& s, double dt, const Box& box, bool correct_u) {
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  const auto n_gas = static_cast<std::ptrdiff_t>(s.n_gas());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const KinematicState c = correct_kinematics(s.pos0[i], s.vel0[i], s.acc0[i], s.acc[i], dt);
    s.pos[i] = wrap_position(c.pos, box);
    s.vel[i] = c.vel;
    if (correct_u && i < n_gas) s.u[i] = correct_energy(s.u0[i], s.dudt0[i], s.dudt[i], dt);
  }
}

double next_timestep(const ParticleStore& s, const TimestepParams& tp, const GravityParams& gp) {
  const TimestepCriteria c{
      tp.courant,    tp.use_acceleration,    tp.use_velocity,       tp.use_sound,
      tp.use_energy, tp.use_signal_velocity, tp.energy_heating_only};
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  const auto n_gas = static_cast<std::ptrdiff_t>(s.n_gas());
  double dt = DBL_MAX;
#pragma omp parallel for reduction(min : dt) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const bool gas = i < n_gas;
    TimestepInput in{};
    in.gas = gas;
    in.acc = s.acc[i];
    in.vel = s.vel[i];
    if (gas) {
      in.h = s.h[i];
      in.csound = s.csound[i];
      in.u = s.u[i];
      in.dudt = s.dudt[i];
      in.vsig = s.vsig[i];
    } else {
      in.h = gp.softening[s.type[i]];
    }
    dt = std::min(dt, particle_timestep(in, c));
  }
  if (tp.dt_max > 0.0) dt = std::min(dt, tp.dt_max);
  return dt;
}

}  // namespace mpsph
