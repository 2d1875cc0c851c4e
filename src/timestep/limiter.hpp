// The neighbour time-step limiter and wake-up of individual time steps on the CPU backend
// (Saitoh & Makino 2009; as in GADGET-4 and SWIFT), over the SPH pair lists of the substep.
// Per-particle rules: block_step_kern.hpp and block_timeline_kern.hpp.
#pragma once

#include <cstdint>

#include "core/active_set.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class SphNeighbours;

// dt_limit of the active particles at tick `now`: their dt_crit, and for gas at most `factor`
// times the limiter reference of every gas neighbour (its new dt_crit when it is active too, the
// step of its rung otherwise). `factor` = 0: no limiter (dt_limit = dt_crit).
void limit_timesteps(ParticleStore& s, const ActiveSet& a, const SphNeighbours& nb, int64_t now,
                     double length, double factor);

// Rungs of the active particles' next steps (now < kTicks) from dt_limit, then the wake-up: an
// inactive gas neighbour of an active gas particle on rung r whose rung is below r - d has its
// step cut to end at the first boundary of rung r - d after now (d = log2 factor; no wake-up for
// d < 0). Returns false when some particle needs a step below length / 2^kMaxRung.
bool assign_rungs(ParticleStore& s, const ActiveSet& a, const SphNeighbours& nb, int64_t now,
                  double length, int d);

// The parts of assign_rungs, for a caller with other pair lists (the MPI ranks,
// parallel/distributed_limiter.hpp):
// the rungs of the active particles' next steps (new_rung_particle); false when some particle
// needs a step below length / 2^kMaxRung;
bool new_rungs(ParticleStore& s, const ActiveSet& a, int64_t now, double length);
// a wake-up request for a particle: rung_wake = max(rung_wake, want), from any thread;
void request_wake(int32_t& rung_wake, int32_t want);
// the requests applied (wake_particle of every gas particle that has one).
void apply_wakes(ParticleStore& s, int64_t now);

}  // namespace mpsph
