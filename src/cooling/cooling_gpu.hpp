// CUDA driver of the cooling stage (defined in cooling_gpu.cu, CUDA builds only): the corrector's
// energy update of every gas particle by cool_stored_particle() of cooling_kern.hpp, the function
// the OpenMP driver (cooling.cpp) calls, on the device arrays with the SD93 tables copied to the
// device once. The energy radiated in the step is summed on the device (fixed order, so runs are
// reproducible) and stays there for the step's one host synchronisation to collect.
#pragma once

#include "cooling/cooling.hpp"
#include "core/active_set.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class GpuCooling {
 public:
  // Copies the model's tables to the device (model none: nothing to copy).
  explicit GpuCooling(const CoolingModel& model);
  ~GpuCooling();
  GpuCooling(const GpuCooling&) = delete;
  GpuCooling& operator=(const GpuCooling&) = delete;

  // u, dudt_cool and temperature of the active gas of `d`, each over its own step
  // ((ti_end - ti_begin) tick_len; asynchronous); the energy radiated, sum m (u0 + dt a - u), is
  // left in device_radiated().
  void apply(const ParticleView& d, const ActiveSet& a, double tick_len);

  // Device address of the energy radiated in the last apply() (0 before the first).
  const double* device_radiated() const { return static_cast<const double*>(radiated_); }

 private:
  CoolingKernelParams params_;  // with the table view pointing to the device copies
  void* table_ = nullptr;       // one allocation: lambda_n, ne, nt, feh
  void* partial_ = nullptr;     // per-block partial sums
  void* radiated_ = nullptr;    // double
};

}  // namespace mpsph
