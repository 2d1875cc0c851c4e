#include "feedback/feedback.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "timestep/block_step_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

namespace {

// The gas sorted by cell key, and the grid over it. Cell width: the geometric mean of the gas
// smoothing lengths (about 1.5 particles per cell where h is typical, as N_B lie within 2h).
struct HostGasGrid {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> idx;
  FeedbackGrid grid;
};

HostGasGrid build_gas_grid(const ParticleView& p, const Box& box) {
  HostGasGrid g;
  std::vector<uint32_t> gas;
  Vec3d lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  double log_h = 0.0;
  std::size_t n_h = 0;
  for (std::size_t j = 0; j < p.n_gas; ++j) {
    if (p.type[j] != kGas) continue;
    gas.push_back(uint32_t(j));
    const Vec3d& x = p.pos[j];
    lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
    hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
    if (p.h[j] > 0.0f) log_h += std::log(double(p.h[j])), ++n_h;
  }
  if (gas.empty()) return g;
  double w = n_h ? std::exp(log_h / double(n_h)) : 0.0;
  if (!(w > 0.0))
    w = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-300}) / std::cbrt(double(gas.size()));
  g.grid = make_feedback_grid(w, lo, hi, box);
  std::vector<std::pair<uint64_t, uint32_t>> kv(gas.size());
  const auto ng = static_cast<std::ptrdiff_t>(gas.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < ng; ++k)
    kv[std::size_t(k)] = {feedback_key(g.grid, p.pos[gas[std::size_t(k)]]), gas[std::size_t(k)]};
  std::sort(kv.begin(), kv.end());
  g.keys.resize(kv.size());
  g.idx.resize(kv.size());
  for (std::size_t k = 0; k < kv.size(); ++k) g.keys[k] = kv[k].first, g.idx[k] = kv[k].second;
  g.grid.keys = g.keys.data();
  g.grid.idx = g.idx.data();
  g.grid.n = g.keys.size();
  return g;
}

}  // namespace

FeedbackStepResult apply_feedback(const ParticleView& p, const ActiveSet& a, const Box& box,
                                  const FeedbackKernParams& kp, const FeedbackTiming& ft,
                                  double time, double tick_len) {
  FeedbackStepResult res;
  std::vector<uint32_t> stars;
  const std::size_t n_active = a.count(p.n);
  for (std::size_t k = a.gas_count(p.n_gas); k < n_active; ++k)
    if (is_feedback_star(p, a[k])) stars.push_back(uint32_t(a[k]));
  if (stars.empty()) return res;
  const HostGasGrid gg = build_gas_grid(p, box);
  if (gg.grid.n == 0) return res;  // no gas: the stars keep what they would release

  // --- per star: release, neighbours, weights
  const int nb = kp.n_ngb;
  const std::size_t ns = stars.size();
  std::vector<StarRelease> rel(ns);
  std::vector<uint32_t> recv(ns * std::size_t(nb));
  std::vector<double> weight(ns * std::size_t(nb));
  std::vector<int> n_recv(ns, 0);
  const auto nsi = static_cast<std::ptrdiff_t>(ns);
#pragma omp parallel
  {
    std::vector<double> d2(std::size_t(nb) + 1);
    std::vector<uint32_t> jj(std::size_t(nb) + 1);
    std::vector<uint64_t> ids(std::size_t(nb) + 1);
#pragma omp for schedule(dynamic, 16)
    for (std::ptrdiff_t s = 0; s < nsi; ++s) {
      const std::size_t i = stars[std::size_t(s)];
      const double dt = a.all() ? double(kTicks) * tick_len : particle_step(p, i, tick_len);
      const StarRelease r = star_release(kp, p, i, time, dt);
      rel[std::size_t(s)] = r;
      if (!(r.dm > 0.0) && !(r.de > 0.0)) continue;
      NeighbourSet set{0, nb + 1, d2.data(), jj.data(), ids.data()};
      feedback_neighbours(gg.grid, box, p.pos, p.id, p.pos[i], set);
      const int n = feedback_weights(p, set, nb, &weight[std::size_t(s) * std::size_t(nb)]);
      for (int k = 0; k < n; ++k)
        recv[std::size_t(s) * std::size_t(nb) + std::size_t(k)] = set.j[k];
      n_recv[std::size_t(s)] = n;
    }
  }
  // --- the stars lose their ejecta; the account in star order (deterministic)
  std::vector<std::pair<uint32_t, uint64_t>> pairs;  // (gas index, slot s * nb + k)
  for (std::size_t s = 0; s < ns; ++s) {
    if (n_recv[s] == 0) continue;
    p.mass[stars[s]] -= rel[s].dm;
    res.energy += rel[s].de;
    res.mass += rel[s].dm;
    ++res.stars;
    for (int k = 0; k < n_recv[s]; ++k)
      pairs.push_back({recv[s * std::size_t(nb) + std::size_t(k)],
                       uint64_t(s * std::size_t(nb) + std::size_t(k))});
  }
  // --- each receiver takes its shares in star order
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::size_t> first;
  for (std::size_t k = 0; k < pairs.size(); ++k)
    if (k == 0 || pairs[k].first != pairs[k - 1].first) first.push_back(k);
  first.push_back(pairs.size());
  res.receivers = first.size() - 1;
  const auto nr = static_cast<std::ptrdiff_t>(res.receivers);
  const int64_t now = a.tick;
  const double length = double(kTicks) * tick_len;
  std::size_t woken = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : woken)
  for (std::ptrdiff_t g = 0; g < nr; ++g) {
    const std::size_t j = pairs[first[std::size_t(g)]].first;
    for (std::size_t k = first[std::size_t(g)]; k < first[std::size_t(g) + 1]; ++k) {
      const uint64_t slot = pairs[k].second;
      receive_feedback(p, j, rel[slot / uint64_t(nb)], weight[slot]);
    }
    woken += feedback_wake(p, j, ft.gamma, ft.courant, now, length, a.all());
  }
  res.woken = woken;
  return res;
}

}  // namespace mpsph
