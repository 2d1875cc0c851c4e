// The OpenMP driver of the cloud <-> gas coupling (cloud_gas_exchange_kern.hpp): evaporation,
// condensation and drag of the active clouds with their gas neighbours
// (feedback/gas_neighbours.hpp, the search SSP feedback uses). Every receiver takes its shares in
// the clouds' store order, so the result does not depend on the number of threads and matches the
// CUDA driver.
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback.hpp"
#include "multiphase/cloud_gas_exchange_kern.hpp"

namespace mpsph {

struct CloudGasStats {
  double evaporation = 0.0;  // E_evaporation of the step [code energy] (> 0: taken out of the gas)
  double drag_work = 0.0;    // kinetic energy the drag dissipated [code energy]
  double drag_heat = 0.0;    // heat the drag gave the gas: drag_work, plus what the floor of
                             // receive_drag_heat added where a dissipation was negative
  double evaporated = 0.0;   // mass evaporated into the gas [code mass]
  double condensed = 0.0;    // mass condensed out of the gas [code mass]
  long to_gas = 0;           // clouds turned back into gas particles
  long removed = 0;          // clouds evaporated completely
};

// The active clouds of [begin, end) (the type range of the last order stage) with the gas
// [0, n_gas): nb neighbours each. Receivers get their new sound speed and, under block steps, are
// woken as by feedback (feedback_sync with ft).
CloudGasStats exchange_cloud_gas(const ParticleView& p, const ActiveSet& a, const Box& box,
                                 const CloudGasParams& cp, const FeedbackTiming& ft, int nb,
                                 std::size_t begin, std::size_t end, double tick_len);

}  // namespace mpsph
