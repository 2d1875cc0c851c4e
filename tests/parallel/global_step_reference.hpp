// The reference of the MPI step tests: the global scheme on the CPU backend of one process, as
// Simulation::run drives it without physics modules.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "catch.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "run/step_backend.hpp"
#include "sph/eos_kern.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/block_timeline_kern.hpp"
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
  auto forces = [&] {
    b->order();
    if (s.n_gas() > 0) {  // Simulation::compute_forces
      b->smoothing_lengths();
      b->density();
      b->prepare_force();
      b->sph_forces();
    }
    b->gravity();
    b->end_force();
  };
  // The next dt, at most dt_max (Simulation::run).
  auto next_dt = [&] {
    b->limit_steps();
    const double dt = b->timestep().dt;
    return tstep.dt_max > 0.0 ? std::min(dt, tstep.dt_max) : dt;
  };
  forces();
  double dt = next_dt();
  if (after_step) after_step(s);
  for (int k = 0; k < steps; ++k) {
    dts.push_back(dt);
    REQUIRE(b->begin_segment(dt, true));
    REQUIRE(b->next_tick() == kTicks);
    b->predict(kTicks);
    forces();
    b->correct(eos_evolves_u(eos));
    dt = next_dt();
    if (after_step) after_step(s);
  }
}

}  // namespace mpsph::test
