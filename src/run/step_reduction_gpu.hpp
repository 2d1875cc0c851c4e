// The GPU backend's one host synchronisation per step (defined in step_reduction_gpu.cu, CUDA
// builds only): one pass over all particles computes the next time step (timestep_kern.hpp), the
// conserved sums (diagnostics_kern.hpp), the particle counts by type and the pending spawn requests
// (particle_changes.hpp) and the health check (health_kern.hpp), and one copy brings them to the
// host together with a device error word of the SPH stages and the last-step values of the modules'
// energy terms.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "run/diagnostics.hpp"
#include "run/health.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

// The most module energy terms one run may have.
constexpr int kMaxEnergyTerms = 12;

// Under the block scheme the reduction takes dt from the limited steps of the particles whose
// steps start at `now` (all of them at kAllActive) and copies the timeline words of the substep.
struct BlockStepInfo {
  bool block = false;
  int64_t now = 0;
  const BlockTimeline* timeline = nullptr;  // device words (integrator_gpu.hpp)
};

struct StepScalars {
  // Global scheme: min dt_limit over the particles (their criteria, cut by modules' time-step
  // stages); block: min dt_limit of the particles whose steps start now. dt_max applied.
  double dt = 0.0;
  Conserved conserved;  // measure_conserved()
  // Particles of each type 0..5, and kRemoved ones at [kNumTypes].
  std::array<std::size_t, kNumTypes + 1> type_counts{};
  // Pending spawn requests by the type of the particle asked for.
  std::array<std::size_t, kNumTypes> spawn_counts{};
  // Particles that follow one of a larger type (a type changed in place: the layout needs a sort).
  std::size_t type_descents = 0;
  std::vector<double> energy;  // values behind the device pointers passed to run(), in order
  HealthReport health;         // the health check of every particle (health_kern.hpp)
  uint32_t error_flags = 0;    // the device word passed to run() (0 when none)
  BlockTimeline timeline{};    // block scheme: the words of BlockStepInfo::timeline
};

class GpuStepReduction {
 public:
  GpuStepReduction();
  ~GpuStepReduction();
  GpuStepReduction(const GpuStepReduction&) = delete;
  GpuStepReduction& operator=(const GpuStepReduction&) = delete;

  // Sums in double in a fixed order (a run is reproducible); counts are integers.
  // dt: the smallest dt_limit (set by limit_steps() and the modules' time-step stages) of every
  // particle (global scheme) or of those starting at block.now; tp.dt_max applied.
  StepScalars run(const ParticleView& d, const TimestepParams& tp, bool with_potential,
                  const uint32_t* device_error_flags,
                  const std::vector<const double*>& device_energy_terms,
                  const BlockStepInfo& block = BlockStepInfo{});

 private:
  void* partial_ = nullptr;  // per-block partial sums
  void* result_ = nullptr;   // final sums, counts, energies, error word
};

}  // namespace mpsph
