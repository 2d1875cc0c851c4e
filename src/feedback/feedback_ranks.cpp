#include "feedback/feedback_ranks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "core/parallel_sort.hpp"
#include "feedback/gas_neighbours.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

namespace {

// A star's share for one receiver, with the star's place in one process's order.
struct Share {
  uint8_t type;
  uint64_t key, id;
  StarRelease rel;
  double weight;
};

bool before(const Share& a, const Share& b) {
  if (a.type != b.type) return a.type < b.type;
  if (a.key != b.key) return a.key < b.key;
  return a.id < b.id;
}

// The shares of the stars (find_gas_shares) over this rank's gas and the ghosts, in one set of
// arrays of what the neighbour search and the weights read (type, position, id, mass, h): gas
// (work index -> store index of this rank's gas) first, the ghosts after it, the stars last.
void shares_with_ghosts(const ParticleView& p, const Box& box, const Ghosts& ghosts,
                        const std::vector<uint32_t>& stars, int nb, std::vector<uint32_t>& gas,
                        GasShares& sh) {
  for (std::size_t j = 0; j < p.n_gas; ++j)
    if (p.type[j] == kGas) gas.push_back(uint32_t(j));
  const std::size_t ns = stars.size(), n_local = gas.size(), n_ghost = ghosts.particles.size();
  const std::size_t nw = n_local + n_ghost + ns;
  std::vector<uint8_t> type(nw, kGas);
  std::vector<Vec3d> pos(nw);
  std::vector<uint64_t> id(nw);
  std::vector<double> mass(nw);
  std::vector<float> h(nw);
  for (std::size_t k = 0; k < n_local; ++k)
    pos[k] = p.pos[gas[k]], id[k] = p.id[gas[k]], mass[k] = p.mass[gas[k]], h[k] = p.h[gas[k]];
  const ParticleStore& g = ghosts.particles;
  for (std::size_t m = 0; m < n_ghost; ++m) {
    const std::size_t k = n_local + m;
    pos[k] = g.pos[m], id[k] = g.id[m], mass[k] = g.mass[m], h[k] = g.h[m];
  }
  std::vector<uint32_t> src(ns);
  for (std::size_t s = 0; s < ns; ++s) {
    const std::size_t k = n_local + n_ghost + s;
    src[s] = uint32_t(k);
    type[k] = p.type[stars[s]];
    pos[k] = p.pos[stars[s]], id[k] = p.id[stars[s]], mass[k] = p.mass[stars[s]], h[k] = 0.0f;
  }
  ParticleView w{};
  w.n = nw;
  w.n_gas = n_local + n_ghost;
  w.type = type.data();
  w.pos = pos.data();
  w.id = id.data();
  w.mass = mass.data();
  w.h = h.data();
  find_gas_shares(w, box, build_gas_grid(w, box), src.data(), nullptr, ns, nb, sh);
}

}  // namespace

FeedbackStepResult apply_feedback_across_ranks(const ParticleView& p, const ActiveSet& a,
                                               const Box& box, const FeedbackKernParams& kp,
                                               const FeedbackTiming& ft, double time,
                                               double tick_len, const ModuleRanks& ranks) {
  FeedbackStepResult res;
  const int nb = kp.n_ngb;
  // --- the active stars that release something (as apply_feedback: the active particles beyond
  // the gas range)
  std::vector<uint32_t> stars;
  std::vector<StarRelease> rel;
  const std::size_t n_active = a.count(p.n);
  for (std::size_t k = a.gas_count(p.n_gas); k < n_active; ++k) {
    const std::size_t i = a[k];
    if (!is_feedback_star(p, i)) continue;
    const double dt = a.all() ? double(kTicks) * tick_len : particle_step(p, i, tick_len);
    const StarRelease r = star_release(kp, p, i, time, dt);
    if (r.dm > 0.0 || r.de > 0.0) stars.push_back(uint32_t(i)), rel.push_back(r);
  }
  const std::size_t ns = stars.size();
  // --- the radius of each star's N_B + 1 nearest gas particles of this rank (no grid when this
  // rank has no releasing star: the fetch and the return below are collective all the same)
  std::vector<Vec3d> centre(ns);
  for (std::size_t s = 0; s < ns; ++s) centre[s] = p.pos[stars[s]];
  const std::vector<double> reach =
      ns > 0 ? gas_reach(p, box, build_gas_grid(p, box), centre, nb) : std::vector<double>{};
  // What the neighbour search and the weights read of the gas.
  const Ghosts ghosts =
      ranks.fetch(p, box, centre, reach, kGas, {"type", "pos", "id", "mass", "h"});
  // --- the stars' N_B nearest among this rank's gas and the ghosts: receivers r < n_local are
  // this rank's gas[r], the others ghost r - n_local
  std::vector<uint32_t> gas;
  GasShares sh;
  if (ns > 0) shares_with_ghosts(p, box, ghosts, stars, nb, gas, sh);
  const std::size_t n_local = gas.size();
  // --- the stars lose their ejecta (the account in star order); their shares
  std::vector<Share> mine;  // shares for this rank's gas, with the store index in `at`
  std::vector<uint32_t> at;
  std::vector<uint32_t> ghost_of;
  std::vector<unsigned char> records;
  mine.reserve(ns * std::size_t(nb));
  at.reserve(ns * std::size_t(nb));
  give_up_ejecta(p, stars, rel, sh, res);
  for (std::size_t s = 0; s < ns; ++s) {
    for (int k = 0; k < sh.n_recv[s]; ++k) {
      const std::size_t slot = s * std::size_t(nb) + std::size_t(k);
      const Share x{p.type[stars[s]], ranks.order_key(stars[s]), p.id[stars[s]], rel[s],
                    sh.weight[slot]};
      const uint32_t r = sh.recv[slot];
      if (r < n_local) {
        mine.push_back(x);
        at.push_back(gas[r]);
      } else {
        ghost_of.push_back(uint32_t(r - n_local));
        const std::size_t b = records.size();
        records.resize(b + sizeof(Share));
        std::memcpy(&records[b], &x, sizeof(Share));
      }
    }
  }
  std::vector<uint32_t> remote_at;
  const std::vector<unsigned char> came =
      ranks.send_to_owners(ghosts, ghost_of, records, sizeof(Share), remote_at);
  for (std::size_t k = 0; k < remote_at.size(); ++k) {
    Share x;
    std::memcpy(&x, &came[k * sizeof(Share)], sizeof(Share));
    mine.push_back(x);
    at.push_back(remote_at[k]);
  }
  // --- each receiver takes its shares in one process's order of the stars
  std::vector<std::size_t> order(mine.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  // (Receiver, star) pairs are distinct: the same order in any thread order.
  parallel_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return at[x] != at[y] ? at[x] < at[y] : before(mine[x], mine[y]);
  });
  std::vector<std::size_t> first;
  for (std::size_t k = 0; k < order.size(); ++k)
    if (k == 0 || at[order[k]] != at[order[k - 1]]) first.push_back(k);
  first.push_back(order.size());
  res.receivers = first.size() - 1;
  res.woken = take_shares(
      p, first, [&](std::size_t k) { return std::size_t(at[order[k]]); },
      [&](std::size_t k) { return std::make_pair(&mine[order[k]].rel, mine[order[k]].weight); }, ft,
      a.tick, double(kTicks) * tick_len, a.all());
  return res;
}

}  // namespace mpsph
