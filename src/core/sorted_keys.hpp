// Search in an ascending array of 64-bit keys, on host and device (the hash grids of the cold
// phase and of the feedback stage look up cells this way).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"

namespace mpsph {

// First position in keys[0, n) (ascending) whose key is >= key (n when there is none).
MPSPH_HD std::size_t lower_bound_key(const uint64_t* keys, std::size_t n, uint64_t key) {
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace mpsph
