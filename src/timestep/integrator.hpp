// CPU driver of the predictor-corrector and the global time step (OpenMP loops over the pure
// functions in integrator_kern.hpp and timestep_kern.hpp).
#pragma once

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

// Saves the step-start state (pos0, vel0, u0, acc0, dudt0) and moves every particle to the
// predicted state at t + dt. Positions are wrapped into a periodic box.
void predict_step(ParticleStore& s, double dt, const Box& box);

// Corrector for positions and velocities of all particles, and for u of gas particles unless
// `correct_u` is false (when a cooling model integrates u itself).
void correct_step(ParticleStore& s, double dt, const Box& box, bool correct_u);

// The next global step: min over particles of the seed criteria (DBL_MAX if nothing limits).
double next_timestep(const ParticleStore& s, const TimestepParams& tp, const GravityParams& gp);

}  // namespace mpsph
