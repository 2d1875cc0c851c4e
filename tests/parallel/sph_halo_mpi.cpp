// The SPH halo selection and the ghost layout (parallel/sph_halo.hpp), run by mpiexec on 1, 2 and
// 3 ranks: halo_members against a brute force over every pair of particles of all ranks, and
// order_with_ghosts / remove_ghosts in both layouts against the order written out by hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/particle_order.hpp"
#include "core/rng.hpp"
#include "core/sfc_key.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/sph_halo.hpp"

using namespace mpsph;

namespace {

// Gas particles of this rank: uniform in [0.4 r, 0.4 r + 1] x [0, 1]^2 (neighbouring ranks
// overlap), ordered by key as the order stage leaves them.
ParticleStore rank_gas(const MpiComm& comm, std::size_t n) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t id = uint64_t(comm.rank()) * n + i;
    s.pos[i] = {0.4 * comm.rank() + random_uniform(id, 3, kStreamSetup, 0),
                random_uniform(id, 3, kStreamSetup, 1), random_uniform(id, 3, kStreamSetup, 2)};
    s.id[i] = id;
    s.type[i] = kGas;
  }
  order_particles(s, Box{});
  return s;
}

double distance(const Vec3d& a, const Vec3d& b) {
  const Vec3d d = a - b;
  return std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
}

}  // namespace

TEST_CASE("sph halo: the particles sent are those of the rule, and every needed one",
          "[mpi][halo]") {
  const MpiComm comm;
  const std::size_t n = 3000;
  const ParticleStore s = rank_gas(comm, n);
  std::vector<double> radius(n), reach(n);
  for (std::size_t i = 0; i < n; ++i) {
    radius[i] = 0.02 + 0.06 * random_uniform(s.id[i], 4, kStreamSetup, 0);
    reach[i] = 0.02 + 0.06 * random_uniform(s.id[i], 4, kStreamSetup, 1);
  }
  // Searchers of a later smoothing-length round: every fifth particle.
  std::vector<uint32_t> few;
  for (uint32_t i = 0; i < n; i += 5) few.push_back(i);

  const std::vector<Vec3d> all_pos = comm.all_gather(s.pos, nullptr);
  const std::vector<double> all_radius = comm.all_gather(radius, nullptr);
  std::vector<std::size_t> box_off;
  const std::vector<SearchBox> boxes =
      comm.all_gather(search_boxes(s, nullptr, n, radius, Box{}), &box_off);
  // No search box is wider than the largest search radius among its particles.
  for (const SearchBox& b : boxes) {
    CHECK(b.hi.x - b.lo.x <= b.radius);
    CHECK(b.hi.y - b.lo.y <= b.radius);
    CHECK(b.hi.z - b.lo.z <= b.radius);
  }
  constexpr double slack = 1.0 + 1e-6;

  for (const bool with_reach : {false, true}) {
    for (const bool subset : {false, true}) {
      const std::vector<std::vector<uint32_t>> sent =
          halo_members(s, n, radius, with_reach ? reach : std::vector<double>{}, Box{}, comm,
                       subset ? &few : nullptr);
      REQUIRE(int(sent.size()) == comm.size());
      CHECK(sent[comm.rank()].empty());
      std::size_t missing = 0, extra = 0, loose = 0, total = 0;
      for (int r = 0; r < comm.size(); ++r) {
        if (r == comm.rank()) continue;
        REQUIRE(std::is_sorted(sent[r].begin(), sent[r].end()));
        std::vector<uint8_t> is_sent(n, 0);
        for (const uint32_t j : sent[r]) is_sent[j] = 1;
        total += sent[r].size();
        for (std::size_t j = 0; j < n; ++j) {
          // Needed: a searching particle of r within whose search radius j is, or which is
          // within j's reach.
          bool needed = false;
          for (std::size_t i = n * std::size_t(r); i < n * std::size_t(r + 1); ++i) {
            const bool searches = !subset || (i - n * std::size_t(r)) % 5 == 0;
            const double d = distance(all_pos[i], s.pos[j]);
            if (searches && (d <= all_radius[i] || (with_reach && d <= reach[j]))) needed = true;
          }
          missing += needed && !is_sent[j];
          // What the boxes add: a box at most R wide (R its largest radius) within max(R, reach_j)
          // of j puts one of its particles within (1 + sqrt 3) max(R, reach_j) of j.
          if (is_sent[j]) {
            double nearest = 1e300, r_max = 0.0;
            for (std::size_t i = n * std::size_t(r); i < n * std::size_t(r + 1); ++i) {
              if (subset && (i - n * std::size_t(r)) % 5 != 0) continue;
              nearest = std::min(nearest, distance(all_pos[i], s.pos[j]));
              r_max = std::max(r_max, all_radius[i]);
            }
            const double bound =
                (1.0 + std::sqrt(3.0)) * std::max(r_max, with_reach ? reach[j] : 0.0) * slack;
            loose += nearest > bound;
          }
          if (!subset) {
            // The rule with r's boxes, exactly.
            bool rule = false;
            for (std::size_t b = box_off[r]; b < box_off[r + 1]; ++b)
              rule = rule || box_distance(s.pos[j], s.pos[j], boxes[b].lo, boxes[b].hi, Box{}) <=
                                 std::max(boxes[b].radius, with_reach ? reach[j] : 0.0) * slack;
            extra += rule != bool(is_sent[j]);
          }
        }
      }
      CHECK(missing == 0);
      CHECK(extra == 0);
      CHECK(loose == 0);
      if (comm.size() > 1) CHECK(total > 0);
    }
  }
}

TEST_CASE("sph halo: ghost layouts, interleaved and appended, and their removal", "[mpi][halo]") {
  // 6 local gas, 4 local dark-matter particles, 3 ghosts (gas) appended; one process is enough.
  ParticleStore s;
  s.resize(13);
  const double xs[13] = {0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.15, 0.35, 0.55, 0.75, 0.6, 0.05, 0.4};
  for (std::size_t i = 0; i < 13; ++i) {
    s.pos[i] = {xs[i], 0.5, 0.5};
    s.id[i] = 100 + i;
    s.type[i] = (i >= 6 && i < 10) ? uint8_t(kDarkMatter) : uint8_t(kGas);
    s.mass[i] = double(i);
  }
  const KeyCube cube{{0, 0, 0}, 1.0};
  auto key = [&](std::size_t i) { return sfc_key(s.pos[i], cube.lo, cube.edge); };
  for (const bool interleave : {true, false}) {
    ParticleStore t = s;
    // The expected order of the store indices.
    std::vector<std::size_t> sorted = {10, 11, 12};  // the ghosts
    if (interleave) sorted.insert(sorted.end(), {0, 1, 2, 3, 4, 5});
    std::sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) {
      return key(a) != key(b) ? key(a) < key(b) : s.id[a] < s.id[b];
    });
    std::vector<std::size_t> expect;
    if (interleave) {
      expect = sorted;
      expect.insert(expect.end(), {6, 7, 8, 9});
    } else {
      expect = {0, 1, 2, 3, 4, 5};
      expect.insert(expect.end(), sorted.begin(), sorted.end());
      expect.insert(expect.end(), {9, 6, 7, 8});  // 9 stays past the gas; 6-8 are displaced
    }
    CHECK_THROWS_AS(order_with_ghosts(t, 10, std::vector<uint64_t>(12), interleave), Error);
    const GhostLayout lay = order_with_ghosts(t, 10, sfc_keys(t, Box{}, cube), interleave);
    CHECK(lay.n_local == 10);
    CHECK(lay.n_local_gas == 6);
    std::vector<uint32_t> local_gas;
    for (std::size_t slot = 0; slot < 13; ++slot) {
      REQUIRE(t.id[slot] == s.id[expect[slot]]);
      REQUIRE(t.mass[slot] == s.mass[expect[slot]]);
      if (expect[slot] < 6) local_gas.push_back(uint32_t(slot));
      if (expect[slot] < 10)
        CHECK(lay.local_slot[expect[slot]] == slot);
      else
        CHECK(lay.ghost_slot[expect[slot] - 10] == slot);
    }
    CHECK(lay.local_gas == local_gas);
    remove_ghosts(t, lay);
    REQUIRE(t.size() == 10);
    for (std::size_t i = 0; i < 10; ++i) CHECK(t.id[i] == s.id[i]);
  }
}
