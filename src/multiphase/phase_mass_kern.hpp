// The phase of a particle for the phase masses of energy.csv: hot gas (T > T_hot), warm gas
// (T <= T_hot), cold clouds (type 2), stars (types 3 and 4). Other types (dark matter, sinks,
// removed) belong to no phase.
#pragma once

#include <cstddef>

#include "cooling/cooling_kern.hpp"
#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

enum Phase : int { kPhaseHot = 0, kPhaseWarm = 1, kPhaseCold = 2, kPhaseStars = 3, kNumPhases = 4 };

struct PhaseParams {
  double T_hot;  // K
  MuModel mu;
  double u_to_T;  // T [K] = mu u_to_T u
};

// Phase of particle i, or -1.
MPSPH_HD int particle_phase(const PhaseParams& p, const ParticleView& s, std::size_t i) {
  switch (s.type[i]) {
    case kGas:
      return temperature_from_u(p.mu, p.u_to_T, s.u[i]) > p.T_hot ? kPhaseHot : kPhaseWarm;
    case kCloud:
      return kPhaseCold;
    case kOldStar:
    case kNewStar:
      return kPhaseStars;
    default:
      return -1;
  }
}

}  // namespace mpsph
