// Morton keys: bit layout, range, and locality.
#include "core/morton.hpp"

#include "catch.hpp"

using namespace mpsph;

TEST_CASE("Morton key bit layout: x, y, z interleaved from the top", "[core][morton]") {
  CHECK(morton_spread21(0x1fffff) == 0x1249249249249249ull);
  CHECK(morton_spread21(0b101) == 0b1000001ull);
  CHECK(morton_key_of_cell(1, 0, 0) == 4);
  CHECK(morton_key_of_cell(0, 1, 0) == 2);
  CHECK(morton_key_of_cell(0, 0, 1) == 1);
  CHECK(morton_key_of_cell(3, 5, 6) == 0b011'101'110ull);  // bits: x=011, y=101, z=110 per level
  // 63 bits: the largest key is 2^63 - 1.
  const uint64_t m = kMortonCellsPerAxis - 1;
  CHECK(morton_key_of_cell(m, m, m) == (uint64_t(1) << 63) - 1);
}

TEST_CASE("Morton key of positions: clamping and octant order", "[core][morton]") {
  const Vec3d lo{-1, -1, -1};
  const double edge = 2.0;
  CHECK(morton_key({-1, -1, -1}, lo, edge) == 0);
  CHECK(morton_key({-5, -5, -5}, lo, edge) == 0);                     // clamped below
  CHECK(morton_key({1, 1, 1}, lo, edge) == (uint64_t(1) << 63) - 1);  // clamped at the top
  // The top three bits are the octant (x, y, z halves).
  CHECK(morton_key({0.5, -0.5, -0.5}, lo, edge) >> 60 == 4);
  CHECK(morton_key({-0.5, 0.5, 0.5}, lo, edge) >> 60 == 3);
  // Grid cell size edge / 2^21: points in one cell share the key.
  const double cell = edge / double(kMortonCellsPerAxis);
  CHECK(morton_key({0.1 + 0.2 * cell, 0, 0}, lo, edge) ==
        morton_key({0.1 + 0.3 * cell, 0, 0}, lo, edge));
}
