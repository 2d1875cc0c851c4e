// The particles a stage of a (sub)step works on: all of them, or the active ones of individual
// time steps as a sorted list of store indices (gas first, since gas leads the store order).
// Host or device addresses, as the backend that made it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"

namespace mpsph {

struct ActiveSet {
  const uint32_t* index = nullptr;  // null: every particle (n and n_gas are then not used)
  std::size_t n = 0;                // active particles
  std::size_t n_gas = 0;            // of which gas: the first n_gas entries

  MPSPH_HD bool all() const { return index == nullptr; }
  // How many are active, of `total` particles or `total_gas` gas particles.
  MPSPH_HD std::size_t count(std::size_t total) const { return index ? n : total; }
  MPSPH_HD std::size_t gas_count(std::size_t total_gas) const { return index ? n_gas : total_gas; }
  // Store index of the k-th active particle.
  MPSPH_HD std::size_t operator[](std::size_t k) const { return index ? index[k] : k; }
};

}  // namespace mpsph
