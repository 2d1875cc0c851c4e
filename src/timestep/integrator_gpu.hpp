// CUDA driver of the predictor-corrector in block form (defined in integrator_gpu.cu, CUDA builds
// only). The per-particle updates are the MPSPH_HD functions of block_step_kern.hpp, as in the
// OpenMP driver integrator.cpp. (The step's reduction, which evaluates timestep_kern.hpp's
// criteria, is the run layer's: run/step_reduction_gpu.hpp.)
#pragma once

#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

// begin_segment / predict_to / correct_active of integrator.hpp on the device arrays, for every
// particle (asynchronous). begin_segment_gpu takes rungs from dt_limit unless single_rung.
void begin_segment_gpu(const ParticleView& d, double length, bool single_rung);
void predict_to_gpu(const ParticleView& d, int64_t now, double tick_len, const Box& box,
                    const EosParams& eos);
void correct_all_gpu(const ParticleView& d, double tick_len, const Box& box, bool correct_u);

}  // namespace mpsph
