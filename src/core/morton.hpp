// 63-bit 3D Morton (Z-order) keys: 21 bits per axis, interleaved x-y-z from the most significant
// bit down. Sorting particles by this key puts spatial neighbours close in memory, which is what
// makes tree walks and neighbour loops cache-friendly (Warren & Salmon 1993; cornerstone's
// sfc/morton.hpp uses the same bit layout).
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/vec3.hpp"

namespace mpsph {

constexpr int kMortonBitsPerAxis = 21;
constexpr uint64_t kMortonCellsPerAxis = uint64_t(1) << kMortonBitsPerAxis;

// Spreads the low 21 bits of v so that bit b moves to bit 3b (magic-number dilation).
MPSPH_HD uint64_t morton_spread21(uint64_t v) {
  v &= 0x1fffffull;
  v = (v | (v << 32)) & 0x1f00000000ffffull;
  v = (v | (v << 16)) & 0x1f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

// Integer cell of a coordinate on a 2^21 grid over [lo, lo + edge); outside values (and NaN) are
// clamped to the first or last cell so every position gets a valid key.
MPSPH_HD uint64_t morton_cell(double x, double lo, double edge) {
  const double t = (x - lo) / edge * double(kMortonCellsPerAxis);
  if (!(t > 0.0)) return 0;
  if (t >= double(kMortonCellsPerAxis)) return kMortonCellsPerAxis - 1;
  return uint64_t(t);
}

// Key of cell indices (ix, iy, iz), each < 2^21: x takes the highest bit of each triple.
MPSPH_HD uint64_t morton_key_of_cell(uint64_t ix, uint64_t iy, uint64_t iz) {
  return (morton_spread21(ix) << 2) | (morton_spread21(iy) << 1) | morton_spread21(iz);
}

// The cube keys are computed in: [lo, lo + edge)^3.
struct KeyCube {
  Vec3d lo{0, 0, 0};
  double edge = 1.0;
};

// Key of position x in the cube [lo, lo + edge)^3. A cube (not a box with per-axis scaling) keeps
// cells isotropic, so elongated domains such as a shock tube still get compact key ranges.
MPSPH_HD uint64_t morton_key(const Vec3d& x, const Vec3d& lo, double edge) {
  return morton_key_of_cell(morton_cell(x.x, lo.x, edge), morton_cell(x.y, lo.y, edge),
                            morton_cell(x.z, lo.z, edge));
}

}  // namespace mpsph
