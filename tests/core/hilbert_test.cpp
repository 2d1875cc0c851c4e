// Hilbert keys: a bijection of the grid, face-adjacent consecutive cells, octree cells as key
// ranges.
#include "core/hilbert.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"

using namespace mpsph;

namespace {

// Skilling's loop as published (64-bit words, a branch per bit): the reference hilbert_key_of_cell
// must equal bit for bit.
uint64_t hilbert_key_reference(uint64_t ix, uint64_t iy, uint64_t iz) {
  uint64_t x[3] = {ix, iy, iz};
  constexpr uint64_t top = uint64_t(1) << (kMortonBitsPerAxis - 1);
  for (uint64_t q = top; q > 1; q >>= 1) {
    const uint64_t low = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= low;
      } else {
        const uint64_t t = (x[0] ^ x[i]) & low;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  x[1] ^= x[0];
  x[2] ^= x[1];
  uint64_t t = 0;
  for (uint64_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  return morton_key_of_cell(x[0] ^ t, x[1] ^ t, x[2] ^ t);
}

struct Cell {
  uint64_t key;
  int x, y, z;
};

// The cells of the 2^level grid placed on the top `level` bits of each axis, by key.
std::vector<Cell> cells_by_key(int level) {
  const int n = 1 << level, shift = kMortonBitsPerAxis - level;
  std::vector<Cell> c;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z)
        c.push_back(
            {hilbert_key_of_cell(uint64_t(x) << shift, uint64_t(y) << shift, uint64_t(z) << shift),
             x, y, z});
  std::sort(c.begin(), c.end(), [](const Cell& a, const Cell& b) { return a.key < b.key; });
  return c;
}

}  // namespace

TEST_CASE("Hilbert keys: every coarse grid once, each cell next to the last", "[core][hilbert]") {
  for (int level = 1; level <= 5; ++level) {
    INFO("grid of " << (1 << level) << "^3 cells");
    const std::vector<Cell> c = cells_by_key(level);
    const int bits = 3 * level;
    std::size_t not_a_step = 0, wrong_key = 0;
    for (std::size_t k = 0; k < c.size(); ++k) {
      // On the top 3 level bits the keys count 0 .. 8^level - 1: each coarse cell once (the
      // bits below are those of the fine cell at its corner, wherever the curve enters it).
      wrong_key += (c[k].key >> (63 - bits)) != uint64_t(k);
      if (k > 0)
        not_a_step += std::abs(c[k].x - c[k - 1].x) + std::abs(c[k].y - c[k - 1].y) +
                          std::abs(c[k].z - c[k - 1].z) !=
                      1;
    }
    CHECK(wrong_key == 0);
    CHECK(not_a_step == 0);
    // Starts in the corner cell (0, 0, 0).
    CHECK((c.front().x == 0 && c.front().y == 0 && c.front().z == 0));
  }
}

TEST_CASE("Hilbert keys: the branch-free 32-bit form equals Skilling's loop", "[core][hilbert]") {
  uint64_t state = 42;
  std::size_t differ = 0;
  for (int k = 0; k < 200000; ++k) {
    const uint64_t r = splitmix64(++state);
    const uint64_t x = r & (kMortonCellsPerAxis - 1), y = (r >> 21) & (kMortonCellsPerAxis - 1),
                   z = (r >> 42) & (kMortonCellsPerAxis - 1);
    differ += hilbert_key_of_cell(x, y, z) != hilbert_key_reference(x, y, z);
  }
  const uint64_t last = kMortonCellsPerAxis - 1;  // the grid's corners
  for (const uint64_t x : {uint64_t(0), last})
    for (const uint64_t y : {uint64_t(0), last})
      for (const uint64_t z : {uint64_t(0), last})
        differ += hilbert_key_of_cell(x, y, z) != hilbert_key_reference(x, y, z);
  CHECK(differ == 0);
}

TEST_CASE("Hilbert keys: an octree cell is one key range at every level", "[core][hilbert]") {
  // Random cells of the full grid: their key's top 3 l bits name their level-l cell - the same
  // prefix for the same cell, different for different cells - so a cell's keys are one range.
  uint64_t state = 20261128;
  auto next = [&state] { return splitmix64(++state); };
  std::vector<uint64_t> ix(4000), iy(4000), iz(4000);
  for (std::size_t k = 0; k < ix.size(); ++k) {
    ix[k] = next() & (kMortonCellsPerAxis - 1);
    iy[k] = next() & (kMortonCellsPerAxis - 1);
    iz[k] = next() & (kMortonCellsPerAxis - 1);
  }
  for (const int level : {1, 2, 4, 7, 12, 21}) {
    INFO("level " << level);
    const int shift = kMortonBitsPerAxis - level;
    std::size_t mismatched = 0;
    for (std::size_t a = 0; a < ix.size(); ++a)
      for (std::size_t b = a + 1; b < std::min(ix.size(), a + 40); ++b) {
        const bool same_cell = (ix[a] >> shift) == (ix[b] >> shift) &&
                               (iy[a] >> shift) == (iy[b] >> shift) &&
                               (iz[a] >> shift) == (iz[b] >> shift);
        const bool same_prefix = (hilbert_key_of_cell(ix[a], iy[a], iz[a]) >> (63 - 3 * level)) ==
                                 (hilbert_key_of_cell(ix[b], iy[b], iz[b]) >> (63 - 3 * level));
        mismatched += same_cell != same_prefix;
      }
    CHECK(mismatched == 0);
  }
  // Cells sharing a coarse cell: the fine cells of one level-3 cell share the 9-bit prefix.
  const uint64_t base = uint64_t(5) << (kMortonBitsPerAxis - 3);
  const uint64_t prefix = hilbert_key_of_cell(base, base, base) >> 54;
  std::size_t outside = 0;
  for (std::size_t k = 0; k < 1000; ++k) {
    const uint64_t m = (uint64_t(1) << (kMortonBitsPerAxis - 3)) - 1;
    outside +=
        hilbert_key_of_cell(base | (next() & m), base | (next() & m), base | (next() & m)) >> 54 !=
        prefix;
  }
  CHECK(outside == 0);
}

TEST_CASE("Hilbert key of positions: the Morton grid's cells, clamped alike", "[core][hilbert]") {
  const Vec3d lo{-1, -1, -1};
  const double edge = 2.0;
  const Vec3d p{0.3, -0.7, 0.55};
  CHECK(hilbert_key(p, lo, edge) == hilbert_key_of_cell(morton_cell(p.x, lo.x, edge),
                                                        morton_cell(p.y, lo.y, edge),
                                                        morton_cell(p.z, lo.z, edge)));
  CHECK(hilbert_key({-1, -1, -1}, lo, edge) == 0);
  CHECK(hilbert_key({-5, -5, -5}, lo, edge) == 0);  // clamped below, the curve's first cell
  const uint64_t m = kMortonCellsPerAxis - 1;
  CHECK(hilbert_key({7, 7, 7}, lo, edge) == hilbert_key_of_cell(m, m, m));
}
