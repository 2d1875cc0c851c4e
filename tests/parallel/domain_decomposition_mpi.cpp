// Domain decomposition and migration across ranks (run by mpiexec on 1, 2 and 3 ranks): every
// particle ends on exactly one rank, the one whose key range holds its key; the cost-weighted
// loads differ from the mean by less than one particle's weight; every field of every particle
// survives a migration and its way back bit for bit; the cuts are redone when, and only when,
// the imbalance exceeds the threshold.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/mpi_test_setup.hpp"
#include "parallel/particle_exchange.hpp"
#include "sph/sph_test_setup.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

constexpr double kMaxWeight = 10.0;

// 3/4 gas in a small cube (27 times denser), 1/4 dark matter spread over a cube 5 times wider:
// the key distribution is far from uniform, and keys stay distinct.
ParticleStore mixed_set(std::size_t n) {
  const std::size_t n_gas = 3 * n / 4;
  std::vector<Vec3d> pos = uniform_points(n_gas, {-0.2, -0.3, -0.1}, {0.4, 0.4, 0.4}, 71);
  const std::vector<Vec3d> dm = uniform_points(n - n_gas, {-1, -1, -1}, {2, 2, 2}, 72);
  pos.insert(pos.end(), dm.begin(), dm.end());
  ParticleStore s = gas_store(pos, 1.0);
  for (std::size_t i = n_gas; i < n; ++i) s.type[i] = kDarkMatter;
  return s;
}

// Cost of a particle, from its id: between 1 and kMaxWeight.
std::vector<double> weights_of(const ParticleStore& s) {
  std::vector<double> w(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    w[i] = 1.0 + (kMaxWeight - 1.0) * random_uniform(s.id[i], 73, kStreamSetup, 0);
  return w;
}

bool same_bytes(const ParticleStore& a, std::size_t i, const ParticleStore& b, std::size_t j) {
  bool same = true;
  // Both stores have the same fields in the same order: visit b's alongside a's by position.
  std::vector<std::vector<unsigned char>> bytes_b;
  const_cast<ParticleStore&>(b).for_each_field([&](const FieldInfo&, auto& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v[j]);
    bytes_b.emplace_back(p, p + sizeof(v[j]));
  });
  std::size_t f = 0;
  const_cast<ParticleStore&>(a).for_each_field([&](const FieldInfo&, auto& v) {
    same = same && std::memcmp(&v[i], bytes_b[f++].data(), sizeof(v[i])) == 0;
  });
  return same;
}

}  // namespace

TEST_CASE(
    "decomposition: each particle on exactly one rank, the owner of its key; loads within "
    "one weight of the mean",
    "[mpi][decomposition]") {
  const MpiComm comm;
  const std::size_t n = 20000;
  const ParticleStore all = mixed_set(n);
  ParticleStore s = scattered_share(all, comm);
  const Box open;

  // The balance bound below needs distinct keys (equal keys cannot be split).
  {
    const KeyCube cube = global_key_cube(s, open, comm);
    std::vector<uint64_t> keys = comm.all_gather(sfc_keys(s, open, cube), nullptr);
    std::sort(keys.begin(), keys.end());
    REQUIRE(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
  }

  DomainDecomposition dd;
  const DecompositionReport rep = dd.update(s, open, weights_of(s), comm);
  CHECK(rep.recut);

  // Owned: every local key in this rank's range.
  const std::vector<uint64_t> keys = sfc_keys(s, open, dd.cube());
  std::size_t foreign = 0;
  for (const uint64_t k : keys) foreign += dd.cuts().owner(k) != comm.rank();
  CHECK(foreign == 0);
  // Exactly once: the ids of all ranks are 1..n, each once.
  std::vector<uint64_t> ids = comm.all_gather(s.id, nullptr);
  std::sort(ids.begin(), ids.end());
  REQUIRE(ids.size() == n);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(ids[i] == i + 1);

  // Loads: |W_r - W / P| < largest weight.
  const std::vector<double> w = weights_of(s);
  std::vector<double> loads(comm.size(), 0.0);
  for (const double x : w) loads[comm.rank()] += x;
  comm.sum(loads);
  double total = 0.0;
  for (const double l : loads) total += l;
  const double mean = total / comm.size();
  for (const double l : loads) CHECK(std::abs(l - mean) < kMaxWeight);
  CHECK(rep.imbalance == Approx(load_imbalance(loads)).margin(1e-12));
  CHECK(rep.imbalance < kMaxWeight / mean);
  if (comm.rank() == 0) {
    std::printf(
        "decomposition on %d ranks: %zu particles, weights 1..%g, total %.1f; imbalance "
        "before %.4f, after %.3e (max load / mean - 1); loads:",
        comm.size(), n, kMaxWeight, total, rep.imbalance_before, rep.imbalance);
    for (const double l : loads) std::printf(" %.2f", l);
    std::printf("\n");
  }
}

// search_cuts against the definition by brute force on the gathered keys: cut r is the smallest
// key c with W(keys < c) >= r W / P, i.e. one past the smallest key k with W(keys <= k) >= r W / P.
// Keys in a narrow range with repeats (ties at a cut) and in the full 63 bits; whole-number
// weights (exact sums in any order); 16 parts per step and, with one candidate allowed, plain
// halvings: the same cuts.
TEST_CASE("decomposition: search_cuts finds the exact cuts, 16 parts per step or 2",
          "[mpi][decomposition]") {
  const MpiComm comm;
  const int P = comm.size(), me = comm.rank();
  for (const uint64_t span : {uint64_t(5000), kKeyEnd}) {
    INFO("keys in [0, " << span << ")");
    std::vector<uint64_t> keys(700 + 300 * std::size_t(me));
    std::vector<double> w(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = random_bits(i, uint64_t(me), 9) % span;
      w[i] = double(1 + random_bits(i, uint64_t(me), 10) % 9);
    }
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<uint64_t> sorted;
    std::vector<double> prefix(1, 0.0);
    for (const std::size_t i : order)
      sorted.push_back(keys[i]), prefix.push_back(prefix.back() + w[i]);
    const WeightBelow below = [&](const std::vector<uint64_t>& mids, std::vector<double>& out) {
      for (std::size_t j = 0; j < mids.size(); ++j)
        out[j] = prefix[std::size_t(std::lower_bound(sorted.begin(), sorted.end(), mids[j]) -
                                    sorted.begin())];
    };
    // The definition on every rank's keys.
    std::vector<uint64_t> all_keys = comm.all_gather(keys, nullptr);
    std::vector<double> all_w = comm.all_gather(w, nullptr);
    std::vector<std::size_t> all_order(all_keys.size());
    for (std::size_t i = 0; i < all_order.size(); ++i) all_order[i] = i;
    std::sort(all_order.begin(), all_order.end(),
              [&](std::size_t a, std::size_t b) { return all_keys[a] < all_keys[b]; });
    double total = 0.0;
    for (const double x : all_w) total += x;
    std::vector<uint64_t> want(std::size_t(P) + 1, 0);
    want[std::size_t(P)] = kKeyEnd;
    for (int r = 1; r < P; ++r) {
      double run = 0.0;
      for (std::size_t k = 0; k < all_order.size(); ++k) {
        run += all_w[all_order[k]];
        // All of a key's repeats count before the key is passed.
        if (k + 1 < all_order.size() && all_keys[all_order[k + 1]] == all_keys[all_order[k]])
          continue;
        if (run >= total * double(r) / double(P)) {
          want[std::size_t(r)] = all_keys[all_order[k]] + 1;
          break;
        }
      }
    }
    for (const std::size_t max_candidates : {std::size_t(2048), std::size_t(1)}) {
      INFO("at most " << max_candidates << " candidates per step");
      double local = 0.0;
      for (const double x : w) local += x;
      const DomainCuts cuts = search_cuts(below, local, comm, max_candidates);
      CHECK(cuts.begin == want);
    }
  }
}

TEST_CASE("migration: every field of every particle arrives and returns bit for bit",
          "[mpi][decomposition]") {
  const MpiComm comm;
  const std::size_t n = 6000;
  ParticleStore all = mixed_set(n);
  fill_every_field(all, 74);
  ParticleStore s = scattered_share(all, comm);
  const ParticleStore before = s;

  DomainDecomposition dd;
  const DecompositionReport rep = dd.update(s, Box{}, {}, comm);
  if (comm.size() > 1) CHECK(rep.sent > 0);
  // On arrival: each particle's every field equals the global set's (id i + 1 is particle i).
  std::size_t differ = 0;
  for (std::size_t i = 0; i < s.size(); ++i) differ += !same_bytes(s, i, all, s.id[i] - 1);
  CHECK(differ == 0);

  // And back to where each came from (id - 1 mod P): the same store as before, in order.
  std::vector<int> home(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) home[i] = int((s.id[i] - 1) % comm.size());
  migrate_particles(s, home, comm);
  REQUIRE(s.size() == before.size());
  std::map<uint64_t, std::size_t> at;
  for (std::size_t i = 0; i < s.size(); ++i) at[s.id[i]] = i;
  differ = 0;
  for (std::size_t i = 0; i < before.size(); ++i)
    differ += !same_bytes(before, i, s, at[before.id[i]]);
  CHECK(differ == 0);
}

TEST_CASE("decomposition: new cuts exactly when the imbalance exceeds max_imbalance",
          "[mpi][decomposition]") {
  const MpiComm comm;
  ParticleStore s = scattered_share(mixed_set(8000), comm);
  const Box open;
  DomainDecomposition dd(DecompositionParams{0.05, {}});
  DomainDecomposition lax(DecompositionParams{100.0, {}});
  ParticleStore t = s;
  CHECK(dd.update(s, open, {}, comm).recut);
  CHECK(lax.update(t, open, {}, comm).recut);
  // Unchanged weights: the cuts stand and nothing moves.
  const DecompositionReport again = dd.update(s, open, {}, comm);
  CHECK_FALSE(again.recut);
  CHECK(comm.sum(uint64_t(again.sent)) == 0);

  // Particles with x > 0 become 20 times as costly.
  auto heavy_right = [](const ParticleStore& p) {
    std::vector<double> w(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) w[i] = p.pos[i].x > 0.0 ? 20.0 : 1.0;
    return w;
  };
  const DecompositionReport strict = dd.update(s, open, heavy_right(s), comm);
  const DecompositionReport kept = lax.update(t, open, heavy_right(t), comm);
  CHECK_FALSE(kept.recut);
  if (comm.size() > 1) {
    CHECK(strict.imbalance_before > 0.05);
    CHECK(strict.recut);
    CHECK(kept.imbalance > 0.05);  // above the strict threshold, below the lax one
  }
  CHECK(strict.imbalance < 20.0 / (comm.sum(double(s.size())) / comm.size()));
}

TEST_CASE("decomposition: keep_cuts decides from the owners' loads as assign does",
          "[mpi][decomposition]") {
  // The device-resident GPU ranks find the owners and their loads on the GPU and ask keep_cuts;
  // here the host finds them, by key and cut, as the GPU does (run/rank_owners.hpp).
  const MpiComm comm;
  ParticleStore s = scattered_share(mixed_set(8000), comm);
  const Box open;
  DomainDecomposition dd(DecompositionParams{0.05, {}});
  dd.update(s, open, {}, comm);
  for (const bool heavy : {false, true}) {
    INFO((heavy ? "x > 0 20 times as costly" : "unit weights"));
    std::vector<double> w(s.size(), 1.0);
    if (heavy)
      for (std::size_t i = 0; i < s.size(); ++i) w[i] = s.pos[i].x > 0.0 ? 20.0 : 1.0;
    const std::vector<uint64_t> keys = sfc_keys(s, open, dd.cube());
    std::vector<double> loads(std::size_t(comm.size()), 0.0);
    double total = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      loads[std::size_t(dd.cuts().owner(keys[i]))] += w[i];
      total += w[i];
    }
    const std::optional<DecompositionReport> kept = dd.keep_cuts(loads, total, comm);
    DomainDecomposition copy = dd;  // assign() may cut anew: decide on a copy
    std::vector<int> dest;
    const DecompositionReport r = copy.assign(s, open, w, comm, dest);
    CHECK(kept.has_value() == !r.recut);
    if (kept) {
      // Whole-number weights: the sums are exact in any order.
      CHECK(kept->imbalance == r.imbalance);
      CHECK(kept->imbalance_before == r.imbalance_before);
    }
    if (comm.size() > 1) CHECK(kept.has_value() == !heavy);
  }
}

TEST_CASE("decomposition: weights that do not match the particles are an error on every rank",
          "[mpi][decomposition]") {
  const MpiComm comm;
  ParticleStore s = scattered_share(mixed_set(600), comm);
  // Only rank 0's count is wrong; the others must not be left waiting in a collective call.
  std::vector<double> w(s.size(), 1.0);
  if (comm.rank() == 0) w.pop_back();
  DomainDecomposition dd;
  CHECK_THROWS_AS(dd.update(s, Box{}, w, comm), Error);
}

TEST_CASE("decomposition: measured cost weights are a rank's times per particle and neighbour",
          "[mpi][decomposition]") {
  const CostWeights before{8.0, 1.0};
  // 93.5 ms of walk over 2e7 particles whose walk shares sum to 3.9e11 SM cycles, 118 ms of SPH
  // passes over 4e6 x 58 neighbours (one H200, the disk galaxy): 4 675 ps per particle, 509 ps
  // per neighbour (whole picoseconds) and 0.23974 ps per walk unit, 245.5 / 1024 rounded to
  // 245 / 1024 or 246 / 1024.
  const CostWeights w =
      measured_cost_weights(0.0935, 20000000, 390000000000, 0.118, 232000000, before);
  CHECK(w.gravity == 4675.0);
  CHECK(w.neighbour == 509.0);
  CHECK(w.walk * 1024.0 == std::round(w.walk * 1024.0));  // a multiple of 1/1024
  CHECK(w.walk == Approx(0.0935e12 / 3.9e11).epsilon(1.0 / 245.0));
  // The load of a rank is then its time: by the walk units, or by particles where not walked.
  CHECK(1e-12 * (390000000000 * w.walk + 232000000 * w.neighbour) ==
        Approx(0.0935 + 0.118).epsilon(3e-3));
  CHECK(1e-12 * (20000000 * w.gravity + 232000000 * w.neighbour) ==
        Approx(0.0935 + 0.118).epsilon(1e-3));
  // The particle's cost: by its walk share when it has one, else per particle.
  CHECK(particle_cost(kGas, 58, 20000, w) == 20000 * w.walk + 58 * w.neighbour);
  CHECK(particle_cost(kGas, 58, 0, w) == w.gravity + 58 * w.neighbour);
  CHECK(particle_cost(kDarkMatter, 58, 0, before) == before.gravity);
  CHECK(particle_cost(kDarkMatter, 58, 20000, before) == before.gravity);  // no walk weight
  // A set's cost from its sums is the sum of its particles' costs, with and without a walk
  // weight: gas walked, gas not walked, dark matter walked.
  for (const CostWeights& u : {w, before}) {
    const double each = particle_cost(kGas, 58, 20000, u) + particle_cost(kGas, 41, 0, u) +
                        particle_cost(kDarkMatter, 0, 31000, u);
    CHECK(summed_cost(3, 2, 51000, 99, u) == each);
  }
  // Nothing measured keeps the weights before; a cost below a picosecond (1/1024 of one per walk
  // unit) counts 1 (1/1024).
  const CostWeights none = measured_cost_weights(0.1, 0, 0, 0.1, 0, before);
  CHECK(none.gravity == before.gravity);
  CHECK(none.neighbour == before.neighbour);
  CHECK(none.walk == before.walk);
  const CostWeights tiny = measured_cost_weights(0.0, 1000, 1000, 1e-15, 1000, before);
  CHECK(tiny.gravity == 1.0);
  CHECK(tiny.neighbour == 1.0);
  CHECK(tiny.walk == 1.0 / 1024.0);
}

TEST_CASE("decomposition: with measured weights a re-cut waits until the imbalance cost as much",
          "[mpi][decomposition]") {
  const MpiComm comm;
  if (comm.size() < 2) return;
  ParticleStore s = scattered_share(mixed_set(4000), comm);
  const Box open;
  DomainDecomposition dd(DecompositionParams{0.05, {}});
  dd.update(s, open, {}, comm);
  // Loads in picoseconds: rank 0 1.2 s of work, the others 1 s (imbalance 0.2 (P - 1) / P over
  // the mean, above 0.05); each decision loses d = max - mean seconds.
  const double P = double(comm.size());
  const double d = 0.2 * (P - 1.0) / P;
  std::vector<double> mine(std::size_t(comm.size()), 0.0);
  mine[std::size_t(comm.rank())] = comm.rank() == 0 ? 1.2e12 : 1.0e12;
  const double weight = mine[std::size_t(comm.rank())];
  // Model weights: the threshold alone decides.
  CHECK_FALSE(dd.keep_cuts(mine, weight, comm).has_value());
  std::vector<int> dest;
  CHECK(dd.assign(s, open, {}, comm, dest).recut);  // makes the re-cut keep_cuts decided on
  // Measured: the first re-cut comes at once, later ones when the loss reaches the last's cost.
  dd.set_weights({5000.0, 500.0});
  CHECK_FALSE(dd.keep_cuts(mine, weight, comm).has_value());
  CHECK(dd.assign(s, open, {}, comm, dest).recut);
  dd.note_recut_cost(comm.rank() == 0 ? 2.5 * d : 0.1 * d, comm);  // the largest rank's counts
  CHECK(dd.keep_cuts(mine, weight, comm).has_value());             // lost d
  CHECK(dd.keep_cuts(mine, weight, comm).has_value());             // lost 2 d
  CHECK_FALSE(dd.keep_cuts(mine, weight, comm).has_value());       // lost 3 d >= 2.5 d
  CHECK(dd.assign(s, open, {}, comm, dest).recut);
  // Below the threshold the cuts stand whatever was lost.
  std::vector<double> even(std::size_t(comm.size()), 0.0);
  even[std::size_t(comm.rank())] = 1.0e12;
  dd.note_recut_cost(0.0, comm);
  CHECK(dd.keep_cuts(even, 1.0e12, comm).has_value());
}

TEST_CASE("decomposition: under block steps a particle's cost counts its steps, 2^rung",
          "[mpi][decomposition]") {
  ParticleStore s;
  s.resize(3);
  s.type = {uint8_t(kGas), uint8_t(kGas), uint8_t(kDarkMatter)};
  s.nngb = {50, 50, 0};
  s.rung = {0, 3, 5};
  DecompositionParams p;
  p.weights = {4000.0, 500.0};
  const std::vector<double> per_particle = cost_weights(s, p);
  CHECK(per_particle == std::vector<double>{29000.0, 29000.0, 4000.0});
  p.by_rung = true;
  CHECK(cost_weights(s, p) == std::vector<double>{29000.0, 8 * 29000.0, 32 * 4000.0});
}
