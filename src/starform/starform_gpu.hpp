// CUDA drivers of star formation (defined in starform_gpu.cu, CUDA builds only): the functions of
// cloud_starform_kern.hpp, katz_kern.hpp and star_birth_kern.hpp, which the OpenMP drivers
// (starform.cpp) call, on the device arrays. The decisions draw the same counter-based random
// numbers as on the CPU, so both backends form the same stars; the step's thermal energy is
// summed on the device in a fixed order and stays there for the step's one host synchronisation.
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/particle_store.hpp"
#include "starform/starform.hpp"

namespace mpsph {

class GpuStarform {
 public:
  explicit GpuStarform(const StarformModel& model);
  ~GpuStarform();
  GpuStarform(const GpuStarform&) = delete;
  GpuStarform& operator=(const GpuStarform&) = delete;

  // finish_spawned_stars() over the stars [begin, end) of the device view.
  void finish_spawned(const ParticleView& d, std::size_t begin, std::size_t end, double decided_at);
  // form_stars() over the active particles; the thermal energy goes to device_thermal_energy().
  void form(const ParticleView& d, const ActiveSet& a, double tick_len, long step, double time);
  // stellar_mass_formed() summed on the device; synchronises.
  double stellar_mass(const ParticleView& d);
  const double* device_thermal_energy() const { return thermal_; }

 private:
  StarformModel model_;
  double* partial_ = nullptr;  // one double per block of a reduction
  double* thermal_ = nullptr;
  double* mass_ = nullptr;
};

}  // namespace mpsph
