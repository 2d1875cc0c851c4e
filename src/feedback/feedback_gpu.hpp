// CUDA driver of the feedback stage (defined in feedback_gpu.cu, CUDA builds only): the steps of
// apply_feedback() in feedback.cpp on the device arrays with the same feedback_kern.hpp and
// feedback_grid_kern.hpp functions - the gas grid (bounding box and cell width reduced on the
// device, keys sorted with CUB), one thread per active non-gas particle for the stars' releases,
// neighbours and weights, a stable sort of the (receiver, star slot) pairs, and one thread per
// receiver taking its shares in star order - so it gives the CPU's particles and adds no host
// synchronisation to the step (the sizes come from the active set's counts, known on the host).
// The SSP table is copied to the device once; the SN energy of the step stays on the device for
// the step's one host synchronisation.
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback.hpp"
#include "feedback/ssp_table.hpp"

namespace mpsph {

class GpuFeedback {
 public:
  GpuFeedback(const SspTable& table, int n_neighbours);
  ~GpuFeedback();
  GpuFeedback(const GpuFeedback&) = delete;
  GpuFeedback& operator=(const GpuFeedback&) = delete;

  // As apply_feedback() (asynchronous); kp.table is replaced by the device copy. The SN energy
  // injected, with a minus sign (the E_feedback account), is left in device_injected().
  void apply(const ParticleView& d, const ActiveSet& a, const Box& box, FeedbackKernParams kp,
             const FeedbackTiming& ft, double time, double tick_len);

  const double* device_injected() const { return static_cast<const double*>(injected_); }

 private:
  void reserve(std::size_t n_gas, std::size_t n_slots);

  SspTableView table_;  // values on the device
  int n_ngb_;
  void* values_ = nullptr;    // the table's values
  void* injected_ = nullptr;  // double
  void* grid_ = nullptr;      // FeedbackGrid
  void* partial_ = nullptr;   // per-block partial reductions
  void* keys_in_ = nullptr;   // uint64 gas cell keys, then the sorted ones in keys_
  void* keys_ = nullptr;
  void* idx_in_ = nullptr;  // uint32 gas indices, then sorted in idx_
  void* idx_ = nullptr;
  void* rel_ = nullptr;          // StarRelease per slot
  void* weight_ = nullptr;       // double per slot * N_B
  void* pair_key_in_ = nullptr;  // uint32 receiver per slot * N_B (UINT32_MAX: none), sorted
  void* pair_key_ = nullptr;
  void* pair_val_in_ = nullptr;  // uint32 slot * N_B + k, sorted with the receivers
  void* pair_val_ = nullptr;
  void* temp_ = nullptr;  // CUB temporary storage
  std::size_t temp_bytes_ = 0, gas_cap_ = 0, slot_cap_ = 0;
};

}  // namespace mpsph
