// The neighbour time-step limiter and the wake-up of block time steps across MPI ranks
// (docs/mpi.md): limit_timesteps and assign_rungs of timestep/limiter.hpp over the pair lists of
// the last density-and-forces stage (HaloPairs, parallel/distributed_sph.hpp), whose remote
// neighbours are ghosts of the density halo.
//  - Limiter: an active gas particle's dt_limit is at most limiter_factor times the reference
//    step of each neighbour (block_step_kern.hpp limiter_reference_step); a ghost's dt_crit,
//    ti_end and rung come from its owner along the halo, after the owner's criteria.
//  - Wake-up: requests for local neighbours are made as on one process; those for ghosts go back
//    along the halo to the owner, which tests them against its own state and active set
//    (needs_wake) and applies every request, local and remote, at once (apply_wakes).
// Minima and maxima do not depend on the order of their terms: dt_limit, the rungs and the wake-ups
// are those of one process holding all particles, bit for bit.
#pragma once

#include <cstdint>

#include "core/active_set.hpp"
#include "core/particle_store.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

// dt_limit of the active particles `a` at tick `now` (collective). `pairs`: of the same active
// set; `factor` = 0: no limiter (dt_limit = dt_crit; nothing is exchanged, yet every rank must
// call it).
void distributed_limit_timesteps(ParticleStore& s, const ActiveSet& a, const HaloPairs& pairs,
                                 int64_t now, double length, double factor, const MpiComm& comm);

// The rungs of the active particles' next steps (now < kTicks) and the wake-up of their
// neighbours on every rank (d = log2 limiter factor; none for d < 0). Returns false on every rank
// when some particle of any rank needs a step below length / 2^kMaxRung (collective).
bool distributed_assign_rungs(ParticleStore& s, const ActiveSet& a, const HaloPairs& pairs,
                              int64_t now, double length, int d, const MpiComm& comm);

}  // namespace mpsph
