// The reference of the MPI step tests: the global scheme on the CPU backend of one process, as
// Simulation::run drives it without physics modules.
#pragma once

#include <functional>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "run/global_steps_support.hpp"
#include "run/step_backend.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph::test {

// `steps` global steps of s; dts receives each step's dt. after_step (may be empty) sees the
// store after the first forces and after every step (steps + 1 calls). G: the gravitational
// constant.
inline void single_process(ParticleStore& s, const Box& box, const SphParams& sph,
                           const EosParams& eos, const GravityParams& grav,
                           const TimestepParams& tstep, int steps, std::vector<double>& dts,
                           double G = 1.0,
                           const std::function<void(const ParticleStore&)>& after_step = {}) {
  const StepContext ctx{s, box, sph, eos, grav, tstep, G, {}};
  const auto b = make_cpu_backend(ctx);
  b->set_next_id(s.size() + 1);
  b->sync_from_host();
  global_steps(*b, s, eos, tstep.dt_max, steps, &dts, after_step);
}

}  // namespace mpsph::test
