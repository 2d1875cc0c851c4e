// CUDA driver of the predictor-corrector (defined in integrator_gpu.cu, CUDA builds only). The
// per-particle updates are the MPSPH_HD functions of integrator_kern.hpp, as in the OpenMP driver
// integrator.cpp. (The step's reduction, which evaluates timestep_kern.hpp's criteria, is the run
// layer's: run/step_reduction_gpu.hpp.)
#pragma once

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// predict_step / correct_step of integrator.hpp on the device arrays (asynchronous).
void predict_step_gpu(const ParticleView& d, double dt, const Box& box);
void correct_step_gpu(const ParticleView& d, double dt, const Box& box, bool correct_u);

}  // namespace mpsph
