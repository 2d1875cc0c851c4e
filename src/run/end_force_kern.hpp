// The end-force stage, per particle: total acceleration = hydro (gas; written by the SPH force
// stage) + gravity. With gravity off, the gravity fields are zeroed so snapshots and diagnostics
// never show stale values.
#pragma once

#include <cstddef>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// Gas particle i when the run has too few gas particles left for SPH (N_B + 1; the rest went into
// sinks): no pressure force and no du/dt, so it moves as a collisionless particle.
MPSPH_HD void clear_hydro_particle(const ParticleView& s, std::size_t i) {
  s.acc[i] = Vec3d{0, 0, 0};
  s.dudt[i] = 0.0;
}

MPSPH_HD void end_force_particle(const ParticleView& s, std::size_t i, bool gravity) {
  Vec3d a = i < s.n_gas ? s.acc[i] : Vec3d{0, 0, 0};
  if (gravity) {
    a += s.acc_grav[i];
  } else {
    s.acc_grav[i] = {0, 0, 0};
    s.pot[i] = 0.0;
  }
  s.acc[i] = a;
}

}  // namespace mpsph
