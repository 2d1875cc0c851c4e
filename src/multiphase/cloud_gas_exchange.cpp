#include "multiphase/cloud_gas_exchange.hpp"

#include <vector>

#include "feedback/gas_neighbours.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

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
  const auto nr = static_cast<std::ptrdiff_t>(runs.count());
  // --- per cloud: the condensation it asks for; per receiver: the fraction of it granted
  std::vector<double> demand(ns), grant(ns * std::size_t(nb), 1.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t s = 0; s < nsi; ++s) {
    const std::size_t i = clouds[std::size_t(s)], base = std::size_t(s) * std::size_t(nb);
    demand[std::size_t(s)] = cloud_condensation_demand(
        cp, p, i, &sh.recv[base], &sh.weight[base], sh.n_recv[std::size_t(s)],
        sh.rho[std::size_t(s)], sh.h[std::size_t(s)], particle_step(p, i, tick_len));
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t g = 0; g < nr; ++g) {
    const std::size_t j = runs.pairs[runs.first[std::size_t(g)]].first;
    const std::size_t k0 = runs.first[std::size_t(g)], k1 = runs.first[std::size_t(g) + 1];
    double d = 0.0;
    for (std::size_t k = k0; k < k1; ++k) {
      const uint64_t slot = runs.pairs[k].second;
      d += sh.weight[slot] * demand[slot / uint64_t(nb)];
    }
    const double gj = receiver_condensation_grant(cp, p.mass[j], d);
    for (std::size_t k = k0; k < k1; ++k) grant[runs.pairs[k].second] = gj;
  }
  // --- per cloud: its own update and what its receivers take (reads the gas, writes the cloud)
  std::vector<CloudGasSource> src(ns);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t s = 0; s < nsi; ++s) {
    const std::size_t i = clouds[std::size_t(s)], base = std::size_t(s) * std::size_t(nb);
    const int n = sh.n_recv[std::size_t(s)];
    src[std::size_t(s)] =
        cloud_gas_step(cp, p, i, &sh.recv[base], &sh.weight[base], n, sh.rho[std::size_t(s)],
                       sh.h[std::size_t(s)], particle_step(p, i, tick_len),
                       cloud_condensation_cap(demand[std::size_t(s)], &grant[base], n));
  }
  // --- each receiver: the condensation losses, then the gains, in cloud order
  std::vector<double> dk(ns * std::size_t(nb), 0.0);  // kinetic energy per share's impulse
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t g = 0; g < nr; ++g) {
    const std::size_t j = runs.pairs[runs.first[std::size_t(g)]].first;
    const std::size_t k0 = runs.first[std::size_t(g)], k1 = runs.first[std::size_t(g) + 1];
    for (std::size_t k = k0; k < k1; ++k) {
      const uint64_t slot = runs.pairs[k].second;
      receive_condensation(p, j, src[slot / uint64_t(nb)], sh.weight[slot]);
    }
    for (std::size_t k = k0; k < k1; ++k) {
      const uint64_t slot = runs.pairs[k].second;
      dk[slot] = receive_evaporation_drag(cp, p, j, src[slot / uint64_t(nb)], sh.weight[slot]);
    }
  }
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
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t g = 0; g < nr; ++g) {
    const std::size_t j = runs.pairs[runs.first[std::size_t(g)]].first;
    const std::size_t k0 = runs.first[std::size_t(g)], k1 = runs.first[std::size_t(g) + 1];
    for (std::size_t k = k0; k < k1; ++k) {
      const uint64_t slot = runs.pairs[k].second;
      floor_added[slot] = receive_drag_heat(cp, p, j, diss[slot / uint64_t(nb)], sh.weight[slot]);
    }
    feedback_sync(p, j, ft.gamma, ft.courant, now, length, a.all());
  }
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
