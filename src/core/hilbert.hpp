// 63-bit 3D Hilbert (Peano-Hilbert) keys on the 2^21 grid of core/morton.hpp: the curve visits
// the cells so that consecutive cells share a face. Skilling's algorithm (J. Skilling 2004,
// "Programming the Hilbert curve", AIP Conf. Proc. 707, 381): the cell indices turned into the
// curve's "transpose" form, whose bits interleaved x-y-z from the top (as a Morton key's) are the
// key. Like the Morton key it is hierarchical - the cells of any octree cell form one contiguous
// key range, level by level - so a key range is still a union of tree cells; unlike it, the curve
// never jumps between distant cells, which is what cuts a run of consecutive particles into
// pieces (docs/PERFORMANCE.md, "The order of the SPH passes' leaves").
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/morton.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// Key of cell indices (ix, iy, iz), each < 2^21.
MPSPH_HD uint64_t hilbert_key_of_cell(uint64_t ix, uint64_t iy, uint64_t iz) {
  uint64_t x[3] = {ix, iy, iz};
  constexpr uint64_t top = uint64_t(1) << (kMortonBitsPerAxis - 1);
  // Undo the excess work of the curve's reflections and rotations, level by level.
  for (uint64_t q = top; q > 1; q >>= 1) {
    const uint64_t low = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= low;  // invert
      } else {
        const uint64_t t = (x[0] ^ x[i]) & low;  // exchange
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  // Gray encode.
  x[1] ^= x[0];
  x[2] ^= x[1];
  uint64_t t = 0;
  for (uint64_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  return morton_key_of_cell(x[0] ^ t, x[1] ^ t, x[2] ^ t);
}

// Key of position x in the cube [lo, lo + edge)^3 (outside positions clamped, as morton_key).
MPSPH_HD uint64_t hilbert_key(const Vec3d& x, const Vec3d& lo, double edge) {
  return hilbert_key_of_cell(morton_cell(x.x, lo.x, edge), morton_cell(x.y, lo.y, edge),
                             morton_cell(x.z, lo.z, edge));
}

}  // namespace mpsph
