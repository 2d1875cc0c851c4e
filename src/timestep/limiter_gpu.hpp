// CUDA driver of the neighbour time-step limiter and wake-up (defined in limiter_gpu.cu, CUDA
// builds only): the rules of limiter.hpp with the per-particle functions of block_step_kern.hpp,
// over the gas pairs r_ij < h_i + h_j of the substep's density pass where it recorded them
// (GpuPairLists: block substeps with an active list) - the pair lists the
// OpenMP driver uses too - else over the pairs that the GPU SPH neighbour tree finds at the
// particles' current positions, a few corrector displacements later (a pair at the edge of the
// kernel support may then count on one backend and not on the other).
#pragma once

#include <cstdint>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class GpuSph;

// dt_limit of the active gas at tick `now` (kAllActive: every particle is active): at most
// `factor` times the limiter reference of every gas neighbour (timestep_criteria_gpu set
// dt_limit = dt_crit before). factor = 0: nothing to do.
void limit_timesteps_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, double length, double factor);

// The wake-up after new_rungs_gpu: inactive gas neighbours of active gas on rung r below
// r - d get their steps cut (apply_wakeups_gpu); d < 0: nothing to do.
void wake_neighbours_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, int d_shift);

}  // namespace mpsph
