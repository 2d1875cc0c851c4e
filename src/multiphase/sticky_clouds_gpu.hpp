// CUDA drivers of the sticky-cloud stage (defined in sticky_clouds_gpu.cu, CUDA builds only): the
// functions of cloud_pairing_kern.hpp and cloud_formation_kern.hpp, which the OpenMP drivers
// (sticky_clouds.cpp) call, on the device arrays. The clouds never leave the device: the cloud
// grid (cloud_grid_kern.hpp) is built on the device (heaviest cloud by a device reduction, keys
// sorted by a CUB radix sort), and the step's energies are summed on the device in a fixed order
// and stay there for the step's one host synchronisation to collect.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "multiphase/sticky_clouds.hpp"

namespace mpsph {

class GpuStickyClouds {
 public:
  explicit GpuStickyClouds(const StickyCloudsModel& model);
  ~GpuStickyClouds();
  GpuStickyClouds(const GpuStickyClouds&) = delete;
  GpuStickyClouds& operator=(const GpuStickyClouds&) = delete;

  // Collisions among the active clouds [begin, end) of `d` in (sub)step `step` (asynchronous); the
  // energy radiated is left in device_interaction_energy().
  void collide(const ParticleView& d, const ActiveSet& a, const Box& box, std::size_t begin,
               std::size_t end, int64_t step, double tick_len);
  // Scheme A among the clouds [begin, end) (asynchronous): the viscous kicks of the active ones;
  // the energy dissipated is left in device_interaction_energy().
  void viscosity(const ParticleView& d, const ActiveSet& a, const Box& box, std::size_t begin,
                 std::size_t end, double tick_len);
  // The time-step stage (asynchronous): every active particle of the clouds' type range [begin,
  // end), and every active gas particle (the clouds' receivers), cuts its dt_limit to its
  // cloud_step_rate and clears it (limit_cloud_step).
  void limit_steps(const ParticleView& d, const ActiveSet& a, std::size_t begin, std::size_t end);
  // Warm -> cold over the active gas (asynchronous); the thermal energy taken out of the gas is
  // left in device_formation_energy().
  void form_clouds(const ParticleView& d, const ActiveSet& a, double tick_len);
  // Mass of each phase (hot, warm, cold, stars), summed on the device; synchronises.
  std::array<double, kNumPhases> phase_masses(const ParticleView& d);

  const double* device_interaction_energy() const { return collision_energy_; }
  const double* device_formation_energy() const { return formation_energy_; }
  // The partner (store index or kNoPartner) each cloud of the last collide() chose, in the
  // clouds' store order; synchronises (tests).
  std::vector<int64_t> partners() const;

 private:
  void reserve(std::size_t n);

  StickyCloudsModel model_;
  std::size_t capacity_ = 0, n_last_ = 0;
  uint64_t* keys_in_ = nullptr;
  uint64_t* keys_ = nullptr;
  uint32_t* local_in_ = nullptr;
  uint32_t* local_ = nullptr;
  int64_t* partner_ = nullptr;
  void* temp_ = nullptr;  // CUB temporary storage
  std::size_t temp_bytes_ = 0;
  double* m_max_ = nullptr;    // heaviest cloud's mass
  void* grid_ = nullptr;       // CloudGrid
  double* partial_ = nullptr;  // per-block partial sums (kNumPhases per block)
  double* collision_energy_ = nullptr;
  double* formation_energy_ = nullptr;
  double* phase_ = nullptr;  // kNumPhases
  // Scheme A, by local cloud index: neighbour lists (k_ngb each), counts, h, rho, c.
  std::size_t visc_capacity_ = 0;
  uint32_t* nbr_ = nullptr;
  int* n_nbr_ = nullptr;
  double* fluid_ = nullptr;  // h, rho, c (visc_capacity_ each), then the accelerations
};

}  // namespace mpsph
