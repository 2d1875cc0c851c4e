// One part's range of n items cut into `parts` as evenly as whole items allow (the first
// n % parts parts one more): what a rank reads or makes of a file or a setup made in parts.
#pragma once

#include <algorithm>
#include <cstdint>

namespace mpsph {

struct PartRange {
  uint64_t first = 0, count = 0;
};

inline PartRange part_range(uint64_t n, uint64_t part, uint64_t parts) {
  return {n / parts * part + std::min(part, n % parts), n / parts + (part < n % parts ? 1 : 0)};
}

}  // namespace mpsph
