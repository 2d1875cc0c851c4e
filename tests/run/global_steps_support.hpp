// Global time steps on any StepBackend as Simulation::run drives them without physics modules:
// the forces of the initial state, then predict, forces, correct and the next dt for each step.
// Shared by the MPI tests' single-process reference (parallel/global_step_reference.hpp) and
// the GPU memory tests (core/device_memory_gpu_test.cpp).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "catch.hpp"
#include "core/particle_store.hpp"
#include "run/step_backend.hpp"
#include "sph/eos_kern.hpp"
#include "sph/eos_params.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph::test {

// `steps` global steps of the backend's particles (`s`: its host store, synced from it); dts (if
// given) receives each step's dt; after_step (may be empty) sees the store after the first
// forces and after every step (steps + 1 calls; the caller syncs a device backend there).
inline void global_steps(StepBackend& b, const ParticleStore& s, const EosParams& eos,
                         double dt_max, int steps, std::vector<double>* dts = nullptr,
                         const std::function<void(const ParticleStore&)>& after_step = {}) {
  auto forces = [&] {
    b.order();
    if (s.n_gas() > 0) {  // Simulation::compute_forces
      b.smoothing_lengths();
      b.density();
      b.prepare_force();
      b.sph_forces();
    }
    b.gravity();
    b.end_force();
  };
  // The next dt, at most dt_max (Simulation::run).
  auto next_dt = [&] {
    b.limit_steps();
    const double dt = b.timestep().dt;
    return dt_max > 0.0 ? std::min(dt, dt_max) : dt;
  };
  forces();
  double dt = next_dt();
  if (after_step) after_step(s);
  for (int k = 0; k < steps; ++k) {
    if (dts) dts->push_back(dt);
    REQUIRE(b.begin_segment(dt, true));
    REQUIRE(b.next_tick() == kTicks);
    b.predict(kTicks);
    forces();
    b.correct(eos_evolves_u(eos));
    dt = next_dt();
    if (after_step) after_step(s);
  }
}

}  // namespace mpsph::test
