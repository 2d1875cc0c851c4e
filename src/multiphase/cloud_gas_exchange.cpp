#include "multiphase/cloud_gas_exchange.hpp"

#include <vector>

#include "feedback/gas_neighbours.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

// Calls f(j, k0, k1) for every receiver j of the runs, in parallel: runs.pairs[k0, k1) are j's
// shares, in cloud order.
template <class F>
void for_each_receiver(const ReceiverRuns& runs, F&& f) {
  const auto nr = static_cast<std::ptrdiff_t>(runs.count());
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t g = 0; g < nr; ++g) {
    const std::size_t k0 = runs.first[std::size_t(g)], k1 = runs.first[std::size_t(g) + 1];
    f(std::size_t(runs.pairs[k0].first), k0, k1);
  }
}

}  // namespace

CloudGasStats exchange_cloud_gas(const ParticleView& p, const ActiveSet& a, const Box& box,
                                 const CloudGasParams& cp, const FeedbackTiming& ft, int nb,
                                 std::size_t begin, std::size_t end, double tick_len) {
  CloudGasStats st;
  if (!cp.evaporation && !(cp.c_d > 0.0)) return st;
  std::vector<uint32_t> clouds;
  for (std::size_t i = begin; i < end; ++i)
    if (p.type[i] == kCloud && a.contains(p.ti_end, i)) clouds.push_back(uint32_t(i));
  if (clouds.empty()) return st;
  const HostGasGrid gg = build_gas_grid(p, box);
  if (gg.grid.n == 0) return st;
  const std::size_t ns = clouds.size();
  GasShares sh;
  find_gas_shares(p, box, gg, clouds.data(), nullptr, ns, nb, sh);

  const auto nsi = static_cast<std::ptrdiff_t>(ns);
  const ReceiverRuns runs = receiver_runs(sh);
  auto slot = [&](std::size_t k) { return std::size_t(runs.pairs[k].second); };
  auto cloud_of = [&](std::size_t k) { return slot(k) / std::size_t(nb); };
  // --- per cloud: the condensation it asks for; per receiver: the fraction of it granted, and the
  // share of its inertia each cloud's drag may use
  std::vector<double> demand(ns), grant(ns * std::size_t(nb), 1.0),
      share(ns * std::size_t(nb), 1.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t s = 0; s < nsi; ++s) {
    const std::size_t i = clouds[std::size_t(s)], base = std::size_t(s) * std::size_t(nb);
    demand[std::size_t(s)] = cloud_condensation_demand(
        cp, p, i, &sh.recv[base], &sh.weight[base], sh.n_recv[std::size_t(s)],
        sh.rho[std::size_t(s)], sh.h[std::size_t(s)], particle_step(p, i, tick_len));
  }
  for_each_receiver(runs, [&](std::size_t j, std::size_t k0, std::size_t k1) {
    double d = 0.0;
    for (std::size_t k = k0; k < k1; ++k) d += sh.weight[slot(k)] * demand[cloud_of(k)];
    const double gj = receiver_condensation_grant(cp, p.mass[j], d);
    const double sj = receiver_drag_share(k1 - k0);
    for (std::size_t k = k0; k < k1; ++k) grant[slot(k)] = gj, share[slot(k)] = sj;
  });
  // --- per cloud: its own update and what its receivers take (reads the gas, writes the cloud)
  std::vector<CloudGasSource> src(ns);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t s = 0; s < nsi; ++s) {
    const std::size_t i = clouds[std::size_t(s)], base = std::size_t(s) * std::size_t(nb);
    const int n = sh.n_recv[std::size_t(s)];
    src[std::size_t(s)] =
        cloud_gas_step(cp, p, i, &sh.recv[base], &sh.weight[base], &share[base], n,
                       sh.rho[std::size_t(s)], sh.h[std::size_t(s)], particle_step(p, i, tick_len),
                       cloud_condensation_cap(demand[std::size_t(s)], &grant[base], n));
  }
  // --- each receiver: the condensation losses, then the gains, in cloud order
  std::vector<double> dk(ns * std::size_t(nb), 0.0);  // kinetic energy per share's impulse
  for_each_receiver(runs, [&](std::size_t j, std::size_t k0, std::size_t k1) {
    for (std::size_t k = k0; k < k1; ++k)
      receive_condensation(p, j, src[cloud_of(k)], sh.weight[slot(k)]);
    for (std::size_t k = k0; k < k1; ++k)
      dk[slot(k)] = receive_evaporation_drag(cp, p, j, src[cloud_of(k)], sh.weight[slot(k)]);
  });
  // --- per cloud: what its drag dissipated
  std::vector<double> diss(ns);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t s = 0; s < nsi; ++s)
    diss[std::size_t(s)] =
        drag_dissipation(src[std::size_t(s)], &dk[std::size_t(s) * nb], sh.n_recv[std::size_t(s)]);
  // --- each receiver: its shares of the dissipations as heat, then its time step
  std::vector<double> floor_added(ns * std::size_t(nb), 0.0);
  const int64_t now = a.tick;
  const double length = double(kTicks) * tick_len;
  for_each_receiver(runs, [&](std::size_t j, std::size_t k0, std::size_t k1) {
    CloudPace pace;
    for (std::size_t k = k0; k < k1; ++k) {
      floor_added[slot(k)] = receive_drag_heat(cp, p, j, diss[cloud_of(k)], sh.weight[slot(k)]);
      note_cloud_pace(src[cloud_of(k)], &pace);
    }
    follow_cloud_steps(p, j, pace, ft.gamma, ft.courant, now, length, a.all());
  });
  // --- the accounts in cloud order (the same total in any thread order)
  for (std::size_t s = 0; s < ns; ++s) {
    st.evaporation += src[s].account;
    st.evaporated += src[s].dm_evap;
    st.condensed += src[s].dm_cond;
    st.to_gas += src[s].fate == kCloudToGas;
    st.removed += src[s].fate == kCloudEvaporated;
    st.drag_work += diss[s];
  }
  double added = 0.0;
  for (double f : floor_added) added += f;
  st.drag_heat = st.drag_work + added;
  return st;
}

}  // namespace mpsph
