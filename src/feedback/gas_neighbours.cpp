#include "feedback/gas_neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/parallel_sort.hpp"
#include "feedback/feedback_kern.hpp"

namespace mpsph {

HostGasGrid build_gas_grid(const ParticleView& p, const Box& box, double cell,
                           const std::vector<uint32_t>* only) {
  HostGasGrid g;
  std::vector<uint32_t> gas;
  Vec3d lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  double log_h = 0.0;
  std::size_t n_h = 0;
  const std::size_t n = only ? only->size() : p.n_gas;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t j = only ? (*only)[k] : k;
    if (p.type[j] != kGas) continue;
    gas.push_back(uint32_t(j));
    const Vec3d& x = p.pos[j];
    lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
    hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
    if (!(cell > 0.0) && p.h[j] > 0.0f) log_h += std::log(double(p.h[j])), ++n_h;
  }
  if (gas.empty()) return g;
  double w = cell > 0.0 ? cell : (n_h ? std::exp(log_h / double(n_h)) : 0.0);
  if (!(w > 0.0))
    w = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-300}) / std::cbrt(double(gas.size()));
  g.grid = make_feedback_grid(w, lo, hi, box);
  std::vector<std::pair<uint64_t, uint32_t>> kv(gas.size());
  const auto ng = static_cast<std::ptrdiff_t>(gas.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < ng; ++k)
    kv[std::size_t(k)] = {feedback_key(g.grid, p.pos[gas[std::size_t(k)]]), gas[std::size_t(k)]};
  parallel_sort(kv.begin(), kv.end(), std::less<>());
  g.keys.resize(kv.size());
  g.idx.resize(kv.size());
  for (std::size_t k = 0; k < kv.size(); ++k) g.keys[k] = kv[k].first, g.idx[k] = kv[k].second;
  g.grid.keys = g.keys.data();
  g.grid.idx = g.idx.data();
  g.grid.n = g.keys.size();
  return g;
}

namespace {

// Calls f(s, set) with the nb + 1 nearest gas particles of grid g (on its particles p) of each
// point s < ns, at(s) its position (at(s, x) false: skip s), on the threads.
template <class At, class F>
void nearest_gas(const ParticleView& p, const Box& box, const HostGasGrid& g, std::size_t ns,
                 int nb, At&& at, F&& f) {
  const auto nsi = static_cast<std::ptrdiff_t>(ns);
#pragma omp parallel
  {
    std::vector<double> d2(std::size_t(nb) + 1);
    std::vector<uint32_t> jj(std::size_t(nb) + 1);
    std::vector<uint64_t> ids(std::size_t(nb) + 1);
#pragma omp for schedule(dynamic, 16)
    for (std::ptrdiff_t s = 0; s < nsi; ++s) {
      Vec3d x;
      if (!at(std::size_t(s), x)) continue;
      NeighbourSet set{0, nb + 1, d2.data(), jj.data(), ids.data()};
      feedback_neighbours(g.grid, box, p.pos, p.id, x, set);
      f(std::size_t(s), set);
    }
  }
}

}  // namespace

void find_gas_shares(const ParticleView& p, const Box& box, const HostGasGrid& g,
                     const uint32_t* src, const uint8_t* need, std::size_t ns, int nb,
                     GasShares& out) {
  out.nb = nb;
  out.recv.assign(ns * std::size_t(nb), 0);
  out.weight.assign(ns * std::size_t(nb), 0.0);
  out.n_recv.assign(ns, 0);
  out.rho.assign(ns, 0.0);
  out.h.assign(ns, 0.0);
  if (g.grid.n == 0) return;
  nearest_gas(
      p, box, g, ns, nb,
      [&](std::size_t s, Vec3d& x) {
        x = p.pos[src[s]];
        return !need || need[s];
      },
      [&](std::size_t s, const NeighbourSet& set) {
        const std::size_t base = s * std::size_t(nb);
        const int n = feedback_weights(p, set, nb, &out.weight[base], &out.rho[s], &out.h[s]);
        for (int k = 0; k < n; ++k) out.recv[base + std::size_t(k)] = set.j[k];
        out.n_recv[s] = n;
      });
}

std::vector<double> gas_reach(const ParticleView& p, const Box& box, const HostGasGrid& g,
                              const std::vector<Vec3d>& at, int nb) {
  std::vector<double> reach(at.size(), kAllGas);
  nearest_gas(
      p, box, g, at.size(), nb,
      [&](std::size_t s, Vec3d& x) {
        x = at[s];
        return true;
      },
      [&](std::size_t s, const NeighbourSet& set) {
        if (set.n == nb + 1) reach[s] = std::sqrt(set.d2[nb]) * (1.0 + 1e-12);
      });
  return reach;
}

ReceiverRuns receiver_runs(const GasShares& sh) {
  ReceiverRuns r;
  const std::size_t nb = std::size_t(sh.nb);
  std::size_t total = 0;
  uint32_t top = 0;  // largest receiver + 1
  for (std::size_t s = 0; s < sh.n_recv.size(); ++s)
    for (int k = 0; k < sh.n_recv[s]; ++k)
      top = std::max(top, sh.recv[s * nb + std::size_t(k)] + 1), ++total;
  r.pairs.resize(total);
  if (total * 4 < std::size_t(top)) {
    // Few shares among many gas particles: sort the pairs.
    std::size_t q = 0;
    for (std::size_t s = 0; s < sh.n_recv.size(); ++s)
      for (int k = 0; k < sh.n_recv[s]; ++k)
        r.pairs[q++] = {sh.recv[s * nb + std::size_t(k)], uint64_t(s * nb + std::size_t(k))};
    std::sort(r.pairs.begin(), r.pairs.end());
    for (std::size_t k = 0; k < r.pairs.size(); ++k)
      if (k == 0 || r.pairs[k].first != r.pairs[k - 1].first) r.first.push_back(k);
  } else {
    // A counting sort by receiver, O(shares + receivers): the slots are placed in ascending
    // order, so every run is in slot order, the order of the sort above.
    std::vector<std::size_t> start(std::size_t(top) + 1, 0);
    for (std::size_t s = 0; s < sh.n_recv.size(); ++s)
      for (int k = 0; k < sh.n_recv[s]; ++k) ++start[sh.recv[s * nb + std::size_t(k)] + 1];
    for (std::size_t j = 0; j < top; ++j) {
      if (start[j + 1] > 0) r.first.push_back(start[j]);
      start[j + 1] += start[j];
    }
    for (std::size_t s = 0; s < sh.n_recv.size(); ++s)
      for (int k = 0; k < sh.n_recv[s]; ++k) {
        const uint32_t j = sh.recv[s * nb + std::size_t(k)];
        r.pairs[start[j]++] = {j, uint64_t(s * nb + std::size_t(k))};
      }
  }
  r.first.push_back(r.pairs.size());
  return r;
}

}  // namespace mpsph
