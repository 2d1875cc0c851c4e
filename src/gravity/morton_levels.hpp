// Octree levels of the 63-bit Morton keys of core/morton.hpp (21 bits per axis, one 3-bit digit per
// level, the root digit in the top triple): which octant a key occupies below a node, and how many
// levels two keys share. Only the digit structure matters here, not the axis order of the bits.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/morton.hpp"

namespace mpsph {

constexpr int kMortonLevels = kMortonBitsPerAxis;  // deepest octree level

// The octant (0..7) that a key occupies below a node at `level` (0 = root).
MPSPH_HD int morton_octant(uint64_t key, int level) {
  return int((key >> (3 * (kMortonLevels - 1 - level))) & 7u);
}

// Number of complete octree levels shared by two keys (0..21): the level at which a node holding
// both must split. Equal keys share all 21 levels and cannot be split.
MPSPH_HD int morton_common_levels(uint64_t a, uint64_t b) {
  const uint64_t d = a ^ b;
  if (d == 0) return kMortonLevels;
  int bit = 3 * kMortonLevels - 1;  // index of the highest differing bit
  while (!((d >> bit) & 1u)) --bit;
  return (3 * kMortonLevels - 1 - bit) / 3;
}

}  // namespace mpsph
