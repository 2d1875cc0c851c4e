// CUDA driver of the predictor-corrector in block form and of the block time-step bookkeeping
// (defined in integrator_gpu.cu, CUDA builds only). The per-particle updates are the MPSPH_HD
// functions of block_step_kern.hpp and timestep_kern.hpp, as in the OpenMP drivers integrator.cpp
// and limiter.cpp. Everything is asynchronous: results the host needs (the next substep's tick
// and active counts, the too-short flag) stay in a device BlockTimeline that the step's one
// synchronisation copies (run/step_reduction_gpu.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/eos_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

// What the host needs to know of the timeline after a substep, computed on the device.
struct BlockTimeline {
  unsigned long long next_tick;   // earliest ti_end of all particles: the next substep's tick
  unsigned long long n_next;      // particles with ti_end == next_tick (the next active set)
  unsigned long long n_next_gas;  // of which gas
  unsigned int too_short;         // some particle needs a step below segment / 2^kMaxRung
};

// Device memory for the active-set list and the timeline words, kept between substeps.
class GpuTimeline {
 public:
  GpuTimeline();
  ~GpuTimeline();
  GpuTimeline(const GpuTimeline&) = delete;
  GpuTimeline& operator=(const GpuTimeline&) = delete;

  // Clears the too-short flag (at the start of a segment's bookkeeping).
  void clear_flags();
  // next_tick, n_next and n_next_gas from the particles' ti_end (two passes, asynchronous).
  void scan(const ParticleView& d);
  // The active set at tick `now` (ti_end == now) as a device list of store indices in store
  // order (gas first); n and n_gas as the last scan counted them.
  ActiveSet select(const ParticleView& d, int64_t now, std::size_t n, std::size_t n_gas);
  // Reads the device words (a host synchronisation; the step's reduction copies them instead).
  BlockTimeline read() const;

  BlockTimeline* device_words() { return words_; }
  unsigned int* device_too_short() { return &words_->too_short; }

 private:
  BlockTimeline* words_ = nullptr;
  uint32_t* index_ = nullptr;
  std::size_t index_capacity_ = 0;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  uint32_t* offset_ = nullptr;  // flags, then their exclusive scan
};

// begin_segment of integrator.hpp for every particle; a dt_limit shorter than the smallest rung
// raises `too_short`.
void begin_segment_gpu(const ParticleView& d, double length, bool single_rung,
                       unsigned int* too_short);
// predict_to of integrator.hpp, every particle.
void predict_to_gpu(const ParticleView& d, int64_t now, double tick_len, const Box& box,
                    const EosParams& eos);
// correct_active of integrator.hpp over the active set.
void correct_active_gpu(const ParticleView& d, const ActiveSet& a, double tick_len, const Box& box,
                        bool correct_u);
// The seed criteria of the active particles into dt_crit, and dt_limit = dt_crit (the limiter
// lowers it next).
void timestep_criteria_gpu(const ParticleView& d, const ActiveSet& a, const TimestepParams& tp,
                           const GravityParams& gp, bool gas_sph = true);
// new_rung_particle of block_step_kern.hpp over the active set (their next steps start at `now`);
// raises `too_short`.
void new_rungs_gpu(const ParticleView& d, const ActiveSet& a, int64_t now, double length,
                   unsigned int* too_short);
// wake_particle of block_step_kern.hpp for every gas particle with a wake-up request.
void apply_wakeups_gpu(const ParticleView& d, int64_t now);

}  // namespace mpsph
