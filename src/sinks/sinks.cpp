#include "sinks/sinks.hpp"

#include <algorithm>
#include <cmath>

#include "core/particles_near.hpp"
#include "sinks/sink_timestep_kern.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

// Store indices of every sink (type 5), in store order: those of the last order stage and those
// made since.
std::vector<uint32_t> sink_list(const ParticleView& p) {
  std::vector<uint32_t> s;
  for (std::size_t i = 0; i < p.n; ++i)
    if (p.type[i] == kSink) s.push_back(uint32_t(i));
  return s;
}

}  // namespace

HostGasGrid build_sink_grid(const ParticleView& p, const Box& box, double h_acc,
                            const std::vector<uint32_t>* only) {
  return build_gas_grid(p, box, feedback_range_cell(h_acc), only);
}

namespace {

// Calls f(j) for every gas particle j of grid g in the cells next to or at the cell of x (every
// particle within h_acc of x on a sink grid), until f returns false; returns whether none did.
template <class F>
bool visit_near_cells(const HostGasGrid& g, const Vec3d& x, F&& f) {
  if (g.grid.n == 0) return true;
  uint64_t key[27];
  const int nc = feedback_cells_near(g.grid, x, key);
  for (int c = 0; c < nc; ++c)
    for (std::size_t k = lower_bound_key(g.grid.keys, g.grid.n, key[c]);
         k < g.grid.n && g.grid.keys[k] == key[c]; ++k)
      if (!f(g.grid.idx[k])) return false;
  return true;
}

}  // namespace

std::vector<uint32_t> sink_group(const ParticleView& p, const HostGasGrid& g, std::size_t i,
                                 const Box& box, double h_acc) {
  std::vector<uint32_t> out;
  const double h2 = h_acc * h_acc;
  visit_near_cells(g, p.pos[i], [&](uint32_t j) {
    if (sink_group_member(p, i, j, box, h2)) out.push_back(j);
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

bool sink_potential_minimum_on_grid(const ParticleView& p, const HostGasGrid& g, std::size_t i,
                                    const Box& box, double h_acc) {
  const double h2 = h_acc * h_acc;
  return visit_near_cells(g, p.pos[i], [&](uint32_t j) {
    return !(p.pot[j] < p.pot[i] && sink_group_member(p, i, j, box, h2));
  });
}

uint32_t sink_creation_failures(const ParticleView& p, std::size_t i, const Box& box,
                                const SinkKernParams& sp, const std::vector<uint32_t>& sinks) {
  const std::vector<uint32_t> g =
      sink_group(p, build_sink_grid(p, box, sp.h_acc), i, box, sp.h_acc);
  return sink_creation_failures(p, i, g.data(), int(g.size()), sinks.data(), int(sinks.size()), box,
                                sp);
}

SinkStepResult sink_step(const ParticleView& p, const ActiveSet& a, const Box& box,
                         const SinkKernParams& sp, double time) {
  SinkStepResult res;
  // --- creation: the active gas passing the tests of the particle alone (density, converging
  // flow, no sink within r_crit), then the group tests (sink_group_forms)
  std::vector<uint32_t> sinks = sink_list(p);
  std::vector<uint32_t> cand;
  const std::size_t n_gas_active = a.gas_count(p.n_gas);
  const int n_sinks = int(sinks.size());
  for (std::size_t k = 0; k < n_gas_active; ++k) {
    const std::size_t i = a[k];
    if (p.type[i] == kGas && sink_local_criteria(p, i, sp) == 0 &&
        sink_isolated(p, i, sinks.data(), n_sinks, box, sp.r_crit))
      cand.push_back(uint32_t(i));
  }
  // The grid over the gas within h_acc of a candidate as it is now: every group below, the
  // candidates' and the new sinks' (made from candidates), lies in it. A grid over all the gas
  // sorted every gas particle at every substep with candidates, on one thread. Creation and the
  // new sinks' groups change types (gas -> sink, gas -> removed), which sink_group_member tests,
  // but move no gas particle.
  HostGasGrid grid;
  if (!cand.empty()) {
    std::vector<Vec3d> at(cand.size());
    for (std::size_t k = 0; k < cand.size(); ++k) at[k] = p.pos[cand[k]];
    const std::vector<uint32_t> near = particles_near(p, 0, p.n_gas, kGas, at, sp.h_acc, box);
    grid = build_sink_grid(p, box, sp.h_acc, &near);
  }
  std::vector<char> pass(cand.size(), 0);
  const auto nc = static_cast<std::ptrdiff_t>(cand.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t k = 0; k < nc; ++k) {
    const std::size_t i = cand[std::size_t(k)];
    // In a collapsing core every particle above rho_sink is a candidate and all but the one at
    // the bottom of the potential fail: the first group member below it decides, before the
    // group is listed (sink_group_forms would fail them on the same test).
    if (!sink_potential_minimum_on_grid(p, grid, i, box, sp.h_acc)) continue;
    const std::vector<uint32_t> g = sink_group(p, grid, i, box, sp.h_acc);
    pass[std::size_t(k)] = sink_group_forms(p, i, g.data(), int(g.size()), box, sp);
  }
  std::vector<uint32_t> ok;
  for (std::size_t k = 0; k < cand.size(); ++k)
    if (pass[k]) ok.push_back(cand[k]);
  std::sort(ok.begin(), ok.end(), [&](uint32_t x, uint32_t y) {
    return sink_candidate_before(p.pot[x], p.id[x], p.pot[y], p.id[y]);
  });
  // At most one new sink per group: a candidate within r_crit of one made this step is dropped.
  std::vector<uint32_t> made;
  const double rc2 = sp.r_crit * sp.r_crit;
  for (uint32_t i : ok) {
    bool free = true;
    for (uint32_t s : made)
      if (norm2(min_image(p.pos[s] - p.pos[i], box)) < rc2) free = false;
    if (!free) continue;
    make_sink(p, i, time);
    made.push_back(i);
  }
  res.created = made.size();
  // A new sink takes its group, the active gas within h_acc (bound as a whole: BBP95 replace
  // the particles within the accretion radius by the sink), in the order of their ids.
  for (uint32_t s : made) {
    std::vector<uint32_t> g;
    for (uint32_t j : sink_group(p, grid, s, box, sp.h_acc))
      if (j != s && a.contains(p.ti_end, j)) g.push_back(j);
    std::sort(g.begin(), g.end(), [&](uint32_t x, uint32_t y) { return p.id[x] < p.id[y]; });
    for (uint32_t j : g) merge_into_sink(p, s, j, box);
    res.accreted += g.size();
  }
  if (!made.empty()) sinks = sink_list(p);

  // --- accretion: each active gas particle picks the active sink it is most bound to
  std::vector<uint32_t> active_sinks;
  for (uint32_t s : sinks)
    if (a.contains(p.ti_end, s)) active_sinks.push_back(s);
  if (active_sinks.empty()) return res;
  std::vector<int32_t> target(n_gas_active, -1);
  const auto ng = static_cast<std::ptrdiff_t>(n_gas_active);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < ng; ++k) {
    const std::size_t j = a[std::size_t(k)];
    if (p.type[j] != kGas) continue;
    double best = HUGE_VAL;
    uint64_t best_id = 0;
    for (std::size_t q = 0; q < active_sinks.size(); ++q) {
      const std::size_t s = active_sinks[q];
      const double e = accretion_energy(p, s, j, box, sp);
      if (e < HUGE_VAL &&
          (target[std::size_t(k)] < 0 || sink_preferred(e, p.id[s], best, best_id))) {
        best = e;
        best_id = p.id[s];
        target[std::size_t(k)] = int32_t(q);
      }
    }
  }
  // Each sink swallows its gas in the order of their ids (the same on every backend).
  std::vector<std::vector<uint32_t>> eaten(active_sinks.size());
  for (std::size_t k = 0; k < n_gas_active; ++k)
    if (target[k] >= 0) eaten[std::size_t(target[k])].push_back(uint32_t(a[k]));
  const auto ns = static_cast<std::ptrdiff_t>(active_sinks.size());
  std::size_t accreted = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : accreted)
  for (std::ptrdiff_t q = 0; q < ns; ++q) {
    std::vector<uint32_t>& e = eaten[std::size_t(q)];
    std::sort(e.begin(), e.end(), [&](uint32_t x, uint32_t y) { return p.id[x] < p.id[y]; });
    for (uint32_t j : e) merge_into_sink(p, active_sinks[std::size_t(q)], j, box);
    accreted += e.size();
  }
  res.accreted += accreted;
  return res;
}

std::vector<SinkMergeRecord> sink_merge_step(const ParticleView& p, const ActiveSet& a,
                                             const Box& box, const SinkMergeParams& mp) {
  std::vector<SinkMergeRecord> out;
  if (!(mp.r_merge > 0.0)) return out;
  const std::vector<uint32_t> sinks = sink_list(p);
  const int n = int(sinks.size());
  if (n < 2) return out;
  std::vector<int64_t> partner(sinks.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (int q = 0; q < n; ++q)
    partner[std::size_t(q)] = choose_sink_partner(p, a, sinks.data(), n, box, mp, q);
  // The pairs are disjoint: each is merged by its lower-id sink's iteration alone.
  std::vector<SinkMergeRecord> rec(sinks.size());
  std::vector<char> merged(sinks.size(), 0);
#pragma omp parallel for schedule(static)
  for (int q = 0; q < n; ++q)
    merged[std::size_t(q)] =
        resolve_sink_pair(p, sinks.data(), partner.data(), box, mp, q, &rec[std::size_t(q)]);
  for (std::size_t q = 0; q < sinks.size(); ++q)
    if (merged[q]) out.push_back(rec[q]);
  std::sort(out.begin(), out.end(), [](const SinkMergeRecord& x, const SinkMergeRecord& y) {
    return x.id_kept < y.id_kept;
  });
  return out;
}

std::size_t wake_near_sinks(const ParticleView& p, const ActiveSet& a, const Box& box,
                            double radius) {
  if (a.all()) return 0;  // global scheme: every particle is active
  std::vector<uint32_t> active_sinks;
  for (std::size_t i = 0; i < p.n; ++i)
    if (p.type[i] == kSink && a.contains(p.ti_end, i)) active_sinks.push_back(uint32_t(i));
  if (active_sinks.empty()) return 0;
  const double r2 = radius * radius;
  const int64_t now = a.tick;
  std::size_t woken = 0;
  const auto ng = static_cast<std::ptrdiff_t>(p.n_gas);
#pragma omp parallel for schedule(static) reduction(+ : woken)
  for (std::ptrdiff_t k = 0; k < ng; ++k) {
    const std::size_t j = std::size_t(k);
    if (p.type[j] != kGas || a.contains(p.ti_end, j)) continue;  // active (rungs move on later)
    int want = 0;
    for (uint32_t s : active_sinks)
      if (norm2(min_image(p.pos[j] - p.pos[s], box)) < r2) want = std::max(want, int(p.rung[s]));
    if (want <= int(p.rung[j])) continue;
    p.rung_wake[j] = std::max(p.rung_wake[j], int32_t(want));
    wake_particle(p, j, now);
    ++woken;
  }
  return woken;
}

std::vector<double> shortest_gas_steps_near(const ParticleView& p, const ActiveSet& a,
                                            const Box& box, double radius, double length,
                                            const std::vector<Vec3d>& at) {
  const double r2 = radius * radius;
  const int64_t now = a.tick;  // kAllActive when every particle is active
  std::vector<double> dt_gas(at.size(), HUGE_VAL);
  // The gas near each point from a grid over the points (was a scan of all the gas per point);
  // the distance test is the scan's (strict), and minima do not depend on the order.
  for (const auto& [j, q] : pairs_near(p, 0, p.n_gas, kGas, at, radius, box))
    if (norm2(min_image(p.pos[j] - at[q], box)) < r2)
      dt_gas[q] = std::min(dt_gas[q], gas_step_near_sink(p, j, now, length));
  return dt_gas;
}

std::vector<uint32_t> sink_indices(const ParticleView& p) {
  std::vector<uint32_t> sinks;
  for (std::size_t i = 0; i < p.n; ++i)
    if (p.type[i] == kSink) sinks.push_back(uint32_t(i));
  return sinks;
}

void follow_shortest_gas_steps(const ParticleView& p, const std::vector<uint32_t>& sinks,
                               const double* dt_gas, int64_t now, double length) {
  for (std::size_t q = 0; q < sinks.size(); ++q)
    if (dt_gas[q] < HUGE_VAL) follow_gas_step(p, sinks[q], dt_gas[q], now, length);
}

void follow_gas_steps(const ParticleView& p, const ActiveSet& a, const Box& box, double radius,
                      double length) {
  const std::vector<uint32_t> sinks = sink_indices(p);
  if (sinks.empty()) return;
  std::vector<Vec3d> at;
  for (const uint32_t s : sinks) at.push_back(p.pos[s]);
  const std::vector<double> dt_gas = shortest_gas_steps_near(p, a, box, radius, length, at);
  follow_shortest_gas_steps(p, sinks, dt_gas.data(), a.tick, length);
}

}  // namespace mpsph
