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
  const TimestepCriteria c = timestep_criteria(tp);
  const SofteningByType soft = softening_by_type(gp);
  const ParticleView v = const_cast<ParticleStore&>(s).view();  // read-only use
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  double dt = DBL_MAX;
#pragma omp parallel for reduction(min : dt) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    dt = std::min(dt, particle_timestep(timestep_input(v, std::size_t(i), soft), c));
  if (tp.dt_max > 0.0) dt = std::min(dt, tp.dt_max);
  return dt;
}

}  // namespace mpsph
