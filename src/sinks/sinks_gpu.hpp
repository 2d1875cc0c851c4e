// CUDA driver of the sinks stage (defined in sinks_gpu.cu, CUDA builds only): creation, accretion
// and the wake-up of sinks.cpp on the device arrays, with the same sink_kern.hpp functions. The
// sinks stay on the device: the stage launches kernels that read their counts (candidates, sinks,
// accreted pairs) from device memory, so it adds no host synchronisation to the step. Only the
// threshold from the resolution (once, at the first stage) and the sinks.csv rows (at diagnostics
// steps) copy back to the host.
#pragma once

#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/gas_neighbours_gpu.hpp"
#include "sinks/sink_csv.hpp"
#include "sinks/sink_kern.hpp"
#include "sinks/sink_merge_csv.hpp"
#include "sinks/sink_merge_kern.hpp"

namespace mpsph {

class GpuSinks {
 public:
  GpuSinks();
  ~GpuSinks();
  GpuSinks(const GpuSinks&) = delete;
  GpuSinks& operator=(const GpuSinks&) = delete;

  // The largest gas particle mass of `d` (one host synchronisation).
  double max_gas_mass(const ParticleView& d);
  // Creation, accretion, merging (mp.r_merge > 0) and (block steps: a.all() false) the wake-up
  // of the gas within wake_radius of an active sink, as sink_step(), sink_merge_step() and
  // wake_near_sinks() of sinks.cpp. The merges are kept on the device for take_merges().
  void step(const ParticleView& d, const ActiveSet& a, const Box& box, const SinkKernParams& sp,
            const SinkMergeParams& mp, double time, double wake_radius);
  // follow_gas_steps() of sinks.hpp on the device.
  void follow_gas_steps(const ParticleView& d, const ActiveSet& a, const Box& box, double radius,
                        double length);
  // The sinks of `d`, by id (a host synchronisation). Throws mpsph::Error when a device buffer
  // overflowed since the last call (too many sinks or candidates, or a group too large).
  std::vector<SinkRow> rows(const ParticleView& d);
  // The merges since the last call, in no fixed order (a host synchronisation).
  std::vector<SinkMergeEvent> take_merges();

 private:
  void list_sinks(const ParticleView& d);
  GpuGasNeighbours grid_;     // the gas in cells of feedback_range_cell(h_acc): the groups
  void* counters_ = nullptr;  // int[kCounters] (sinks_gpu.cu)
  void* sinks_ = nullptr;     // uint32 store indices of the sinks
  void* cand_ = nullptr;      // uint32 candidate indices
  void* ok_ = nullptr;        // uint32 passing candidates
  void* pass_ = nullptr;      // uint8 per candidate
  void* members_ = nullptr;   // uint32 group members, kMaxMembers per block
  void* made_ = nullptr;      // uint32 sinks made this step
  void* pairs_ = nullptr;     // uint2 (sink slot, gas index) to accrete
  std::size_t pairs_cap_ = 0;
  void* rows_ = nullptr;     // SinkRow staging for rows()
  void* dt_gas_ = nullptr;   // uint64 bits of the shortest gas step near each sink (kMaxSinks)
  void* partner_ = nullptr;  // int64 merging partner slot of each sink (kMaxSinks)
  void* merges_ = nullptr;   // SinkMergeEvent since the last take_merges() (kMaxSinks)
};

}  // namespace mpsph
