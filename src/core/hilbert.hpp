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

// One level of Skilling's loop for axis i > 0 at bit b (low = the bits below b): bit b of x_i set
// inverts x_0's low bits, else x_0 and x_i exchange them. Branch-free: the lanes of a warp take
// either path at once.
MPSPH_HD void hilbert_untwist(uint32_t& x0, uint32_t& xi, int b, uint32_t low) {
  const uint32_t set = 0u - ((xi >> b) & 1u);  // all ones where bit b of x_i is set
  const uint32_t t = (x0 ^ xi) & low & ~set;
  x0 ^= (low & set) | t;
  xi ^= t;
}

// Key of cell indices (ix, iy, iz), each < 2^21. In 32-bit words and without branches: the GPU
// computes a key for every particle in the order stage and in the decomposition's owners, where
// lanes would take both sides of a per-bit branch (one GPU's order + trees at 2e7 disk particles,
// H200: 10.7 ms per step with the branches, 10.5 without; two calls, docs/PERFORMANCE.md).
MPSPH_HD uint64_t hilbert_key_of_cell(uint64_t ix, uint64_t iy, uint64_t iz) {
  uint32_t x0 = uint32_t(ix), x1 = uint32_t(iy), x2 = uint32_t(iz);
  // Undo the excess work of the curve's reflections and rotations, level by level from the top.
  for (int b = kMortonBitsPerAxis - 1; b > 0; --b) {
    const uint32_t low = (uint32_t(1) << b) - 1u;
    x0 ^= low & (0u - ((x0 >> b) & 1u));  // axis 0: only the inversion
    hilbert_untwist(x0, x1, b, low);
    hilbert_untwist(x0, x2, b, low);
  }
  // Gray encode: bit j of t is the parity of x2's bits above j.
  x1 ^= x0;
  x2 ^= x1;
  uint32_t t = x2 >> 1;
  t ^= t >> 1;
  t ^= t >> 2;
  t ^= t >> 4;
  t ^= t >> 8;
  t ^= t >> 16;
  return morton_key_of_cell(x0 ^ t, x1 ^ t, x2 ^ t);
}

// Key of position x in the cube [lo, lo + edge)^3 (outside positions clamped, as morton_key).
MPSPH_HD uint64_t hilbert_key(const Vec3d& x, const Vec3d& lo, double edge) {
  return hilbert_key_of_cell(morton_cell(x.x, lo.x, edge), morton_cell(x.y, lo.y, edge),
                             morton_cell(x.z, lo.z, edge));
}

}  // namespace mpsph
