// The owners of a device-resident rank's particles under the domain cuts, found on the GPU
// (run/rank_owners.hpp), against the host's definition: the order key (core/sfc_key.hpp) in the
// cube (periodic positions wrapped), owner by the cuts, cost g + nngb for gas with a count and g
// otherwise (mpi.gravity_cost g: 1 and 7), and measured weights with a walk weight: the particle's
// gravity by its walk_cost where it has one (core/particle_cost.hpp).
#ifdef MPSPH_HAVE_CUDA
#include <algorithm>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/particle_cost.hpp"
#include "core/particle_order.hpp"
#include "core/rng.hpp"
#include "core/sfc_key.hpp"
#include "run/rank_owners.hpp"

using namespace mpsph;

TEST_CASE("rank owners: the GPU's owners, loads, leavers and counts are the host's", "[gpu][mpi]") {
  // The model's weights, and measured ones (picoseconds of an H200's walk and SPH neighbour).
  // The walk weight in multiples of 1/1024 (measured_cost_weights): 0.2412 ps per cycle.
  for (const CostWeights w : {CostWeights{1.0, 1.0}, CostWeights{7.0, 1.0}, CostWeights{4712, 513},
                              CostWeights{4712, 513, 247.0 / 1024.0}})
    for (const bool periodic : {false, true})
      for (const bool ordered : {false, true}) {
        // Unordered, a warp's particles have several owners; ordered by key (as the order stage
        // leaves them), one as a rule: the kernel's sums by group take both paths.
        INFO((periodic ? "periodic" : "open")
             << (ordered ? ", ordered" : "") << ", weights " << w.gravity << ", " << w.neighbour);
        Box box;
        if (periodic) box = Box{true, {-1, -1, -1}, {2, 2, 2}};
        const std::size_t n = 50000;
        ParticleStore s;
        s.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
          // Inside [-1, 1)^3, and in the periodic box every third one an image outside it.
          s.pos[i] = {2.0 * random_uniform(i, 5, kStreamSetup, 0) - 1.0,
                      2.0 * random_uniform(i, 5, kStreamSetup, 1) - 1.0,
                      2.0 * random_uniform(i, 5, kStreamSetup, 2) - 1.0};
          if (periodic && i % 3 == 0) s.pos[i].y += 2.0;
          s.type[i] = uint8_t(i % 7 == 0 ? kNewStar : i % 5 == 0 ? kDarkMatter : kGas);
          s.nngb[i] = i % 11 == 0 ? 0 : int32_t(40 + i % 23);
          // Walk shares of ~2e4 cycles (GPU), every ninth particle not walked, every fourth
          // beyond 2^16 (to 1.2e8: the kernel sums a warp's units in two 16-bit halves).
          s.walk_cost[i] = i % 9 == 0 ? 0u : uint32_t(9000 + (i * 7919) % 30011);
          if (i % 4 == 1) s.walk_cost[i] *= 3001u;
        }
        if (ordered) order_particles(s, box);
        const Vec3d lo{-1, -1, -1};
        const double edge = 2.0;
        // Four ranks, uneven key ranges of the 63-bit keys; this is rank 2.
        constexpr uint64_t kEnd = uint64_t(1) << 63;
        const std::vector<uint64_t> cuts = {0, kEnd / 5, kEnd / 2, kEnd / 2 + kEnd / 7, kEnd};
        const int me = 2;
        std::vector<double> loads(4, 0.0);
        std::vector<uint64_t> particles(4, 0), walked(4, 0), walk_units(4, 0), neighbours(4, 0);
        std::vector<uint32_t> leaving;
        std::vector<int> owner;
        std::array<std::size_t, kNumTypes + 1> counts{};
        for (std::size_t i = 0; i < n; ++i) {
          const uint64_t key = sfc_key(wrap_position(s.pos[i], box), lo, edge);
          const int r = int(std::upper_bound(cuts.begin(), cuts.end(), key) - cuts.begin()) - 1;
          loads[std::size_t(r)] += particle_cost(s.type[i], s.nngb[i], s.walk_cost[i], w);
          ++particles[std::size_t(r)];
          walked[std::size_t(r)] += s.walk_cost[i] > 0;
          walk_units[std::size_t(r)] += s.walk_cost[i];
          neighbours[std::size_t(r)] +=
              s.type[i] == kGas && s.nngb[i] > 0 ? uint64_t(s.nngb[i]) : 0;
          if (r != me) {
            leaving.push_back(uint32_t(i));
            owner.push_back(r);
            ++counts[kNumTypes];
          } else {
            ++counts[s.type[i]];
          }
        }
        DeviceParticles d;
        d.upload(s);
        DeviceRankOwners finder;
        const RankOwners got = finder.find(d, box, lo, edge, cuts, me);
        CHECK(got.particles == particles);
        CHECK(got.walked == walked);
        CHECK(got.walk_units == walk_units);
        CHECK(got.neighbours == neighbours);
        CHECK(got.loads(w) == loads);  // multiples of 1/1024: exact in any order
        CHECK(got.leaving == leaving);
        CHECK(got.owner == owner);
        CHECK(got.counts == counts);
        CHECK(leaving.size() > n / 2);

        finder.mark_removed(d, got.leaving);
        ParticleStore back = s;
        d.download(back, {Field::type});
        std::size_t wrong = 0;
        std::size_t k = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const bool leaves = k < leaving.size() && leaving[k] == i;
          k += leaves;
          wrong += back.type[i] != (leaves ? kRemoved : s.type[i]);
        }
        CHECK(wrong == 0);
      }
}

#endif  // MPSPH_HAVE_CUDA

TEST_CASE(
    "rank owners: a re-cut's bounds, keys, costs and sums below keys on the GPU are the host's",
    "[gpu][mpi]") {
  const std::size_t n = 30000;
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {3.0 * random_uniform(i, 7, kStreamSetup, 0) - 1.0,
                2.0 * random_uniform(i, 7, kStreamSetup, 1) - 0.5,
                random_uniform(i, 7, kStreamSetup, 2) + 4.0};
    s.type[i] = uint8_t(i % 4 == 0 ? kDarkMatter : kGas);
    s.nngb[i] = i % 13 == 0 ? 0 : int32_t(50 + i % 17);
    s.walk_cost[i] = i % 10 == 0 ? 0u : uint32_t(12000 + (i * 104729) % 20011);
  }
  DeviceParticles d;
  d.upload(s);
  DeviceRankOwners finder;
  Vec3d lo, hi;
  finder.bounds(d, lo, hi);
  Vec3d want_lo = s.pos[0], want_hi = s.pos[0];
  for (const Vec3d& x : s.pos) {
    want_lo = {std::min(want_lo.x, x.x), std::min(want_lo.y, x.y), std::min(want_lo.z, x.z)};
    want_hi = {std::max(want_hi.x, x.x), std::max(want_hi.y, x.y), std::max(want_hi.z, x.z)};
  }
  CHECK((lo.x == want_lo.x && lo.y == want_lo.y && lo.z == want_lo.z));
  CHECK((hi.x == want_hi.x && hi.y == want_hi.y && hi.z == want_hi.z));
  const double edge = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const Box open;
  const CostWeights w{4712, 513, 253.0 / 1024.0};
  const double total = finder.keys_and_costs(d, open, lo, edge, w);
  std::vector<uint64_t> keys(n);
  double want_total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = sfc_key(s.pos[i], lo, edge);
    want_total += particle_cost(s.type[i], s.nngb[i], s.walk_cost[i], w);
  }
  CHECK(total == want_total);  // multiples of 1/1024: exact in any order
  // Candidate cuts of five ranks at the keys' quartiles and beyond the last.
  std::vector<uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<uint64_t> mids = {0, sorted[n / 4], sorted[n / 2] + 1, sorted[3 * n / 4],
                                      sorted.back() + 1};
  std::vector<double> below;
  finder.weight_below(mids, below);
  REQUIRE(below.size() == mids.size());
  CHECK(below[0] == 0.0);
  for (std::size_t r = 1; r < mids.size(); ++r) {
    double want = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      if (keys[i] < mids[r]) want += particle_cost(s.type[i], s.nngb[i], s.walk_cost[i], w);
    INFO("candidate " << r);
    CHECK(below[r] == want);
  }
  CHECK(below.back() == want_total);
  // As search_cuts asks (parallel/domain_decomposition.hpp): 3 cuts x 15 candidates, in no order,
  // with repeats, some between two keys, some on a key, one past every key.
  std::vector<uint64_t> many;
  for (std::size_t j = 0; j < 45; ++j) {
    const uint64_t k = sorted[(j * 7919) % n];
    many.push_back(j % 3 == 0 ? k : j % 3 == 1 ? k + 1 : sorted.back() + 1);
  }
  many.push_back(many[5]);
  finder.weight_below(many, below);
  REQUIRE(below.size() == many.size());
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < many.size(); ++j) {
    double want = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      if (keys[i] < many[j]) want += particle_cost(s.type[i], s.nngb[i], s.walk_cost[i], w);
    wrong += below[j] != want;
  }
  CHECK(wrong == 0);
}
