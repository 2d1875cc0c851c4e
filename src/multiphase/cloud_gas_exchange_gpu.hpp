// CUDA driver of the cloud <-> gas coupling (defined in cloud_gas_exchange_gpu.cu, CUDA builds
// only): exchange_cloud_gas() of cloud_gas_exchange.cpp on the device arrays with the same
// cloud_gas_exchange_kern.hpp functions and the gas neighbours of gas_neighbours_gpu.hpp (shared
// with SSP feedback): one thread per cloud of the type range gathers its receivers and its
// condensation demand, the (receiver, cloud slot) pairs are sorted stably by receiver, one thread
// per receiver grants the demands on it, one thread per cloud updates itself, and one thread per
// receiver takes its shares in cloud order (condensation losses first, then the gains). The step's
// accounts are summed on the device in a fixed order and stay there for the step's one host
// synchronisation; nothing else synchronises.
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback.hpp"
#include "feedback/gas_neighbours_gpu.hpp"
#include "multiphase/cloud_gas_exchange_kern.hpp"

namespace mpsph {

class GpuCloudGasExchange {
 public:
  GpuCloudGasExchange(const CloudGasParams& cp, const FeedbackTiming& ft, int nb);
  ~GpuCloudGasExchange();
  GpuCloudGasExchange(const GpuCloudGasExchange&) = delete;
  GpuCloudGasExchange& operator=(const GpuCloudGasExchange&) = delete;

  // As exchange_cloud_gas() for the clouds [begin, end) (asynchronous).
  void apply(const ParticleView& d, const ActiveSet& a, const Box& box, std::size_t begin,
             std::size_t end, double tick_len);
  // The last step's accounts on the device: [0] E_evaporation, [1] E_drag (the drag's
  // dissipation), [2] E_drag_heat (minus the heat the drag gave the gas).
  const double* device_accounts() const { return accounts_; }

 private:
  CloudGasParams cp_;
  FeedbackTiming ft_;
  int nb_;
  GpuGasNeighbours ngb_;
  CloudGasSource* src_ = nullptr;  // per cloud slot
  double* demand_ = nullptr;       // per cloud slot: the condensation it asks for (then: the
                                   // dissipation of its drag)
  int* n_recv_ = nullptr;          // per cloud slot: its receivers
  double* grant_ = nullptr;        // per share: the fraction its receiver grants (then: the
                                   // energy the heat floor added)
  double* work_ = nullptr;         // per share: the kinetic energy its drag impulse gave
  double* accounts_ = nullptr;     // 3
  std::size_t cap_ = 0;
};

}  // namespace mpsph
