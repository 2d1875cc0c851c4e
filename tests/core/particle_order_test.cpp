// The order stage: gas first, key order (core/sfc_key.hpp: Hilbert) within each type, data moved
// with the particles.
#include "core/particle_order.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"

using namespace mpsph;

TEST_CASE("order_particles sorts by (type, key) and keeps particles intact", "[core][order]") {
  const std::size_t n = 5000;
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {random_uniform(i, 1, kStreamSetup, 0), random_uniform(i, 1, kStreamSetup, 1),
                random_uniform(i, 1, kStreamSetup, 2)};
    s.type[i] = uint8_t(random_uniform(i, 1, kStreamSetup, 3) * 3.0);  // gas, DM, clouds mixed
    s.id[i] = i;
    s.mass[i] = 1.0 + double(i);  // a field that identifies the particle
  }
  for (const bool periodic : {false, true}) {
    Box box;
    if (periodic) box = Box{true, {0, 0, 0}, {1, 1, 1}};
    CHECK(order_particles(s, box));
    const std::vector<uint64_t> keys = order_keys(s, box);
    for (std::size_t i = 1; i < n; ++i) {
      REQUIRE(s.type[i - 1] <= s.type[i]);
      if (s.type[i - 1] == s.type[i]) REQUIRE(keys[i - 1] <= keys[i]);
    }
    for (std::size_t i = 0; i < n; ++i) REQUIRE(s.mass[i] == 1.0 + double(s.id[i]));
    const auto counts = s.count_by_type();
    CHECK(s.n_gas() == counts[kGas]);
    CHECK(counts[kGas] > 1000);
    CHECK_FALSE(order_particles(s, box));  // already ordered: nothing moves
  }
}

TEST_CASE(
    "order_particles follows the Hilbert curve: consecutive particles of a lattice are neighbours",
    "[core][order]") {
  // One particle at the centre of each cell of an 8^3 lattice, shuffled: in key order every
  // particle is one lattice spacing from the last, along one axis (a Morton order jumps: 7 cells
  // at the step from one 4^3 octant to the next). The open box's key cube is the particles'
  // bounding cube, [0.5, 7.5]^3, whose 2^21 grid maps each lattice cell onto whole key cells.
  const int m = 8;
  ParticleStore s;
  s.resize(std::size_t(m * m * m));
  for (int i = 0; i < m * m * m; ++i) {
    const std::size_t j = std::size_t((i * 137) % (m * m * m));  // 137 is prime to 512
    s.pos[j] = {0.5 + i % m, 0.5 + (i / m) % m, 0.5 + i / (m * m)};
    s.id[j] = j;
    s.type[j] = kGas;
  }
  order_particles(s, Box{});
  const std::vector<uint64_t> keys = order_keys(s, Box{});
  for (std::size_t i = 1; i < s.size(); ++i) {
    INFO("particle " << i);
    REQUIRE(keys[i - 1] < keys[i]);
    const Vec3d d = s.pos[i] - s.pos[i - 1];
    REQUIRE(std::abs(d.x) + std::abs(d.y) + std::abs(d.z) == 1.0);
  }
}

TEST_CASE("order_particles is stable: equal (type, key) keep their order", "[core][order]") {
  ParticleStore s;
  s.resize(6);
  // Particles 1, 3, 5 share one position (one key), 0, 2, 4 another; all gas.
  for (std::size_t i = 0; i < 6; ++i) {
    s.pos[i] = i % 2 ? Vec3d{0.9, 0.9, 0.9} : Vec3d{0.1, 0.1, 0.1};
    s.id[i] = i;
    s.type[i] = kGas;
  }
  order_particles(s, Box{});
  const std::vector<uint64_t> expected{0, 2, 4, 1, 3, 5};
  CHECK(s.id == expected);
}

TEST_CASE("order_particles of a subset equals a compaction followed by order_particles",
          "[core][order]") {
  // The MPI order stage orders the particles a rank holds after a migration (a subset of the
  // uncompacted store) with one permute; the store must be that of permute + resize + order.
  const std::size_t n = 150000;  // above the size from which permute copies on the threads
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {random_uniform(i, 2, kStreamSetup, 0), random_uniform(i, 2, kStreamSetup, 1),
                random_uniform(i, 2, kStreamSetup, 2)};
    if (i % 17 == 0) s.pos[i] = s.pos[i - i % 34];  // shared keys: the tie-break is the index
    s.type[i] = uint8_t(random_uniform(i, 2, kStreamSetup, 3) * 2.0);
    s.id[i] = i;
    s.mass[i] = 1.0 + double(i);
  }
  std::vector<std::size_t> subset;
  for (std::size_t i = 0; i < n; ++i)
    if (random_uniform(i, 2, kStreamSetup, 4) < 0.8) subset.push_back(i);
  for (const bool periodic : {false, true}) {
    Box box;
    if (periodic) box = Box{true, {0, 0, 0}, {1, 1, 1}};
    ParticleStore a = s, b = s;
    a.permute(subset);
    a.resize(subset.size());
    order_particles(a, box);
    CHECK(order_particles(b, box, &subset));
    REQUIRE(b.size() == subset.size());
    CHECK(b.id == a.id);
    CHECK(b.mass == a.mass);
    CHECK(b.type == a.type);
    bool same_pos = true;
    for (std::size_t i = 0; i < a.size(); ++i)
      same_pos = same_pos && a.pos[i].x == b.pos[i].x && a.pos[i].y == b.pos[i].y &&
                 a.pos[i].z == b.pos[i].z;
    CHECK(same_pos);
  }
}
