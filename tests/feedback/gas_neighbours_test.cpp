// The shared gas-neighbour search (feedback_grid_kern.hpp, gas_neighbours.hpp): the K nearest gas
// on grids of 1 to 6 cells per side of a periodic box (z runs of cells split across the wrap) and
// of an open box, against brute force; the receiver runs against a sort of the (receiver, slot)
// pairs, for few and for many shares per gas particle (the two paths of receiver_runs).
#include "feedback/gas_neighbours.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "feedback/feedback_grid_kern.hpp"

using namespace mpsph;

TEST_CASE("gas neighbours: the K nearest on coarse periodic grids, as brute force finds them",
          "[feedback]") {
  const double L = 10.0;
  const std::size_t n = 700;
  std::vector<Vec3d> pos(n);
  std::vector<uint64_t> id(n);
  for (std::size_t j = 0; j < n; ++j) {
    pos[j] = {L * random_uniform(j, 7, 1), L * random_uniform(j, 7, 2),
              L * random_uniform(j, 7, 3)};
    id[j] = 5000 - j;
  }
  for (bool periodic : {true, false}) {
    Box box;
    box.periodic = periodic;
    box.size = {L, L, L};
    for (double w : {1.6, 2.6, 3.4, 4.5, 6.0, 11.0}) {  // 6, 3, 2, 2, 1, 1 cells per side
      FeedbackGrid g = make_feedback_grid(w, {0, 0, 0}, {L, L, L}, box);
      std::vector<std::pair<uint64_t, uint32_t>> kv;
      for (uint32_t j = 0; j < n; ++j) kv.push_back({feedback_key(g, pos[j]), j});
      std::sort(kv.begin(), kv.end());
      std::vector<uint64_t> keys;
      std::vector<uint32_t> idx;
      for (auto& e : kv) keys.push_back(e.first), idx.push_back(e.second);
      g.keys = keys.data(), g.idx = idx.data(), g.n = keys.size();
      for (int q = 0; q < 30; ++q) {
        const Vec3d x{L * random_uniform(q, 8, 1), L * random_uniform(q, 8, 2),
                      L * random_uniform(q, 8, 3)};
        const int K = 40;
        std::vector<double> d2(K);
        std::vector<uint32_t> jj(K);
        std::vector<uint64_t> ids(K);
        NeighbourSet s{0, K, d2.data(), jj.data(), ids.data()};
        feedback_neighbours(g, box, pos.data(), id.data(), x, s);
        std::vector<std::pair<double, uint64_t>> all;
        for (std::size_t j = 0; j < n; ++j)
          all.push_back({norm2(min_image(pos[j] - x, box)), id[j]});
        std::sort(all.begin(), all.end());
        INFO("periodic " << periodic << ", cell " << w << ", source " << q);
        REQUIRE(s.n == K);
        for (int k = 0; k < K; ++k) {
          REQUIRE(s.d2[k] == all[std::size_t(k)].first);
          REQUIRE(s.id[k] == all[std::size_t(k)].second);
        }
      }
    }
  }
}

TEST_CASE("gas neighbours: receiver runs are the (receiver, slot) pairs in sorted order",
          "[feedback]") {
  // n_gas receivers, ns sources of nb shares with n_recv[s] <= nb used (some empty).
  for (uint32_t n_gas : {20u, 100000u}) {
    GasShares sh;
    sh.nb = 7;
    const std::size_t ns = 300;
    sh.recv.assign(ns * 7, 0);
    sh.n_recv.assign(ns, 0);
    std::vector<std::pair<uint32_t, uint64_t>> ref;
    for (std::size_t s = 0; s < ns; ++s) {
      sh.n_recv[s] = int(random_bits(s, 9, 1) % 8);
      for (int k = 0; k < sh.n_recv[s]; ++k) {
        const uint32_t j = uint32_t(random_bits(s, 9, 2, uint32_t(k)) % n_gas);
        sh.recv[s * 7 + std::size_t(k)] = j;
        ref.push_back({j, uint64_t(s * 7 + std::size_t(k))});
      }
    }
    std::sort(ref.begin(), ref.end());
    const ReceiverRuns r = receiver_runs(sh);
    INFO("n_gas " << n_gas);
    REQUIRE(r.pairs == ref);
    REQUIRE(r.first.front() == 0);
    REQUIRE(r.first.back() == ref.size());
    std::size_t runs = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) runs += k == 0 || ref[k].first != ref[k - 1].first;
    REQUIRE(r.count() == runs);
    for (std::size_t g = 0; g < r.count(); ++g)
      for (std::size_t k = r.first[g]; k < r.first[g + 1]; ++k)
        REQUIRE(r.pairs[k].first == r.pairs[r.first[g]].first);
  }
}
