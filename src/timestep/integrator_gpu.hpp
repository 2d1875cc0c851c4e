// CUDA driver of the predictor-corrector and of the step's scalar reductions (defined in
// integrator_gpu.cu, CUDA builds only). The per-particle updates are the MPSPH_HD functions of
// integrator_kern.hpp and timestep_kern.hpp, as in the OpenMP driver integrator.cpp.
#pragma once

#include <cstdint>

#include "core/box.hpp"
#include "core/diagnostics.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

// predict_step / correct_step of integrator.hpp on the device arrays (asynchronous).
void predict_step_gpu(const ParticleView& d, double dt, const Box& box);
void correct_step_gpu(const ParticleView& d, double dt, const Box& box, bool correct_u);

struct StepScalars {
  double dt = 0.0;           // next_timestep(): min over particles, DBL_MAX if nothing limits
                             // (dt_max is applied too)
  Conserved conserved;       // measure_conserved() (radiated = 0)
  double radiated = 0.0;     // the device double passed to run() (0 when none)
  uint32_t error_flags = 0;  // the device word passed to run() (0 when none)
};

// The step's one host synchronisation: a single pass over all particles computes the next time
// step and the conserved sums (in double, fixed reduction order, so a run is reproducible), and
// one copy brings them to the host together with a device error word of another stage and the
// energy the cooling stage radiated.
class GpuStepReduction {
 public:
  GpuStepReduction();
  ~GpuStepReduction();
  GpuStepReduction(const GpuStepReduction&) = delete;
  GpuStepReduction& operator=(const GpuStepReduction&) = delete;

  StepScalars run(const ParticleView& d, const TimestepParams& tp, const GravityParams& gp,
                  bool with_potential, const uint32_t* device_error_flags,
                  const double* device_radiated);

 private:
  void* partial_ = nullptr;  // per-block partial sums
  void* result_ = nullptr;   // final sums + error word
};

}  // namespace mpsph
