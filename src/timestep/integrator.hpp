// CPU driver of the predictor-corrector in block form and of the time-step criteria (OpenMP loops
// over the pure functions of block_step_kern.hpp and timestep_kern.hpp). The global scheme is the
// special case of one step per synchronisation segment, every particle on rung 0.
#pragma once

#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/eos_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

// Start of a synchronisation segment of `length` code time: every particle's state becomes the
// base of its first step; its rung is 0 (`single_rung`, the global scheme) or the one of its
// dt_limit. Returns false when some dt_limit is shorter than length / 2^kMaxRung.
bool begin_segment(ParticleStore& s, double length, bool single_rung);

// The earliest end of a current step: the tick of the next substep.
int64_t next_tick(const ParticleStore& s);

// The active particles at tick `now` (ti_end == now), gas first.
void select_active(const ParticleStore& s, int64_t now, std::vector<uint32_t>& index,
                   std::size_t& n_gas);

// The particles a substep at tick `now` works on: under the block scheme inside a segment
// (now < kTicks) those of select_active, listed in `index` (which must outlive the set; the set
// is an empty one, not every particle, when none is active here - an MPI rank's); every particle
// under the global scheme, at a synchronisation point (now = kAllActive) and at a segment's end
// (now = kTicks, where every step ends).
ActiveSet substep_active_set(const ParticleStore& s, int64_t now, bool block,
                             std::vector<uint32_t>& index);

// The smallest dt_limit of the active particles (DBL_MAX when there are none).
double smallest_dt_limit(const ParticleStore& s, const ActiveSet& a);

// Moves every particle to tick `now` from the start of its current step (block_step_kern.hpp
// predict_particle); positions are wrapped into a periodic box.
void predict_to(ParticleStore& s, int64_t now, double tick_len, const Box& box,
                const EosParams& eos);

// Corrector of the active particles over their steps (u too unless `correct_u` is false: a
// cooling model integrated it); the result is the base of their next steps.
void correct_active(ParticleStore& s, const ActiveSet& a, double tick_len, const Box& box,
                    bool correct_u);

// The seed criteria of the active particles into dt_crit; returns their minimum (DBL_MAX if
// nothing limits).
// gas_sph false: too few gas particles for SPH, the gas takes the collisionless criterion
// (timestep_kern.hpp SofteningByType).
double compute_timestep_criteria(ParticleStore& s, const ActiveSet& a, const TimestepParams& tp,
                                 const GravityParams& gp, bool gas_sph = true);

}  // namespace mpsph
