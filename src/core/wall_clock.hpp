// Wall-clock seconds from a fixed origin, for the stage parts a layer times itself (the MPI
// layer's decomposition, halos and locally essential trees).
#pragma once

#include <chrono>

namespace mpsph {

inline double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace mpsph
