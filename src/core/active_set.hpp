// The particles a stage of a (sub)step works on: all of them, or the active ones of individual
// time steps - those whose step ends at tick `tick` (ti_end == tick) - as a sorted list of store
// indices (gas first, since gas leads the store order). Host or device addresses, as the backend
// that made it; n and n_gas are known on the host either way. Kernels that work per leaf or per
// group rather than through the list test membership with contains().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/annotation.hpp"

namespace mpsph {

struct ActiveSet {
  const uint32_t* index = nullptr;  // null: every particle (n and n_gas are then not used)
  std::size_t n = 0;                // active particles
  std::size_t n_gas = 0;            // of which gas: the first n_gas entries
  int64_t tick = -1;                // the active particles are those with ti_end == tick
  // GPU passes over the active gas: particles per warp (1 ... 32; 0 means 32), chosen for the
  // set's size by the GPU backend when it makes the set (gpu_task_lanes, sph/sph_gpu.hpp), so
  // that every pass of a substep maps warps to particles alike. The CPU backend ignores it.
  int lanes = 0;

  MPSPH_HD bool all() const { return index == nullptr; }
  // How many are active, of `total` particles or `total_gas` gas particles.
  MPSPH_HD std::size_t count(std::size_t total) const { return index ? n : total; }
  MPSPH_HD std::size_t gas_count(std::size_t total_gas) const { return index ? n_gas : total_gas; }
  // Whether store index i is active, from the particles' step ends (ParticleView::ti_end).
  MPSPH_HD bool contains(const int64_t* ti_end, std::size_t i) const {
    return index == nullptr || ti_end[i] == tick;
  }
  // Whether store index i is in the set, by binary search of the sorted list: for tests made
  // after the active particles' ti_end moved on to their next steps (contains() no longer works).
  MPSPH_HD bool holds(std::size_t i) const {
    if (index == nullptr) return true;
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (std::size_t(index[mid]) < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < n && std::size_t(index[lo]) == i;
  }
  // Store index of the k-th active particle.
  MPSPH_HD std::size_t operator[](std::size_t k) const { return index ? index[k] : k; }
};

// The active set of the sorted host store indices `index` (gas first: its first n_gas entries) at
// `tick`. Never all(), also when `index` is empty: an empty vector's data() may be null, which
// would mean every particle (an MPI rank may have no active particle at a substep).
inline ActiveSet active_subset(const std::vector<uint32_t>& index, std::size_t n_gas,
                               int64_t tick = -1) {
  static const uint32_t kNone = 0;
  ActiveSet a;
  a.index = index.empty() ? &kNone : index.data();
  a.n = index.size();
  a.n_gas = n_gas;
  a.tick = tick;
  return a;
}

}  // namespace mpsph
