// CUDA driver of the feedback stage (defined in feedback_gpu.cu, CUDA builds only): the steps of
// apply_feedback() in feedback.cpp on the device arrays with the same feedback_kern.hpp and
// feedback_grid_kern.hpp functions - the gas grid and the sort of the (receiver, star slot) pairs
// of gas_neighbours_gpu.hpp (shared with the cold phase), one thread per active non-gas particle
// for the stars' releases, neighbours and weights, and one thread per receiver taking its shares
// in star order - so it gives the CPU's particles and adds no host synchronisation to the step
// (the sizes come from the active set's counts, known on the host).
// The SSP table is copied to the device once; the SN energy of the step stays on the device for
// the step's one host synchronisation.
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback.hpp"
#include "feedback/gas_neighbours_gpu.hpp"
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
  SspTableView table_;  // values on the device
  int n_ngb_;
  GpuGasNeighbours ngb_;      // the gas grid, the shares and their sort
  void* values_ = nullptr;    // the table's values
  void* injected_ = nullptr;  // double
  void* rel_ = nullptr;       // StarRelease per slot
  std::size_t rel_cap_ = 0;
};

}  // namespace mpsph
