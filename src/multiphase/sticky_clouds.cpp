#include "multiphase/sticky_clouds.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/parallel_sort.hpp"
#include "core/units.hpp"
#include "multiphase/cloud_pairing_kern.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

StickyCloudsModel::StickyCloudsModel(const MultiphaseParams& p, const UnitSystem& units,
                                     bool u_integrated) {
  if (units.nbody)
    throw Error(
        "multiphase.model = sticky_clouds needs physical units (Sigma_cl, n_c and T have a cgs "
        "scale), not N-body units");
  const double surface_cgs = units.mass_cgs / (units.length_cgs * units.length_cgs);
  const double rho_cgs = units.mass_cgs / (units.length_cgs * units.length_cgs * units.length_cgs);
  interaction = p.interaction;
  viscosity.alpha = p.viscosity_alpha;
  viscosity.beta = p.viscosity_beta;
  viscosity.sigma_c = p.sigma_c_kms * cgs::km_s / units.velocity_cgs;
  viscosity.k_ngb = p.viscosity_neighbours;
  viscosity.courant = p.viscosity_courant;
  collision.pi_sigma =
      cgs::kPi * p.sigma_cl_Msun_pc2 * cgs::Msun / (cgs::pc * cgs::pc) / surface_cgs;
  collision.G = units.G;
  collision.beta_r = p.restitution;
  collision.beta_t = p.restitution;
  collision.m_max = p.m_max_Msun * cgs::Msun / units.mass_cgs;

  const MuModel mu{p.mu_variable, p.mu};
  const double u_to_T =
      (p.gamma - 1.0) * cgs::m_H * units.velocity_cgs * units.velocity_cgs / cgs::k_B;
  formation.T_c = p.T_c_K;
  formation.n_c = p.n_c_cm3;
  formation.mu = mu;
  formation.u_to_T = u_to_T;
  formation.nH_per_rho = rho_cgs / cgs::m_H;
  formation.x_h_default = p.hydrogen_fraction;
  formation.u_integrated = u_integrated;

  phase.T_hot = p.hot_K;
  phase.mu = mu;
  phase.u_to_T = u_to_T;

  exchange.evaporation = p.evaporation;
  exchange.c_d = p.drag_coefficient;
  exchange.pi_sigma = collision.pi_sigma;
  exchange.length_to_pc = units.length_cgs / cgs::pc;
  exchange.rate_to_code = units.time_cgs() / units.mass_cgs;
  exchange.nH_per_rho = formation.nH_per_rho;
  exchange.x_h_default = p.hydrogen_fraction;
  exchange.mu = mu;
  exchange.u_to_T = u_to_T;
  exchange.gamma = p.gamma;
  exchange.m_min_fraction = p.cloud_min_mass_fraction;
  exchange.condense_limit = p.condense_limit;
  exchange.m_max = collision.m_max;
  exchange.u_integrated = u_integrated;
  exchange.evaporation_courant = p.evaporation_courant;
  gas_neighbours = p.gas_neighbours;
  courant = p.courant;
}

CloudCollisionStats collide_cloud_set(const ParticleView& p, const ActiveSet& active,
                                      const Box& box, const CloudCollisionParams& params,
                                      std::size_t begin, std::size_t end, int64_t step,
                                      double tick_len, CpuCloudScratch& scratch) {
  CloudCollisionStats stats;
  const std::size_t n = end - begin;
  scratch.begin = begin;
  scratch.partner.assign(n, kNoPartner);
  if (n < 2) return stats;
  // The grid: cells of at least 2 R of the heaviest cloud.
  double m_max = 0.0;
  for (std::size_t i = begin; i < end; ++i) m_max = std::max(m_max, p.mass[i]);
  if (m_max <= 0.0) return stats;
  CloudSet set;
  set.grid = make_cloud_grid(cloud_radius(m_max, params.pi_sigma), box);
  set.begin = begin;
  set.n = n;
  scratch.keys.resize(n);
  scratch.local.resize(n);
  std::vector<std::pair<uint64_t, uint32_t>> order(n);
  const auto sn = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < sn; ++k)
    order[std::size_t(k)] = {cloud_key(set.grid, p.pos[begin + std::size_t(k)]), uint32_t(k)};
  parallel_sort(order.begin(), order.end(), std::less<>());
  for (std::size_t k = 0; k < n; ++k) {
    scratch.keys[k] = order[k].first;
    scratch.local[k] = order[k].second;
  }
  set.keys = scratch.keys.data();
  set.local = scratch.local.data();

  int64_t* partner = scratch.partner.data();
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < sn; ++k)
    partner[k] = choose_cloud_partner(p, active, set, box, params.pi_sigma, begin + std::size_t(k));

  scratch.radiated.assign(n, 0.0);
  double* radiated = scratch.radiated.data();
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < sn; ++k)
    radiated[k] =
        resolve_cloud_pair(p, params, partner, begin, box, step, tick_len, begin + std::size_t(k));
  // Counted and summed in the clouds' order: the same total in any thread order.
  for (std::size_t k = 0; k < n; ++k) {
    const int64_t j = partner[k];
    if (j == kNoPartner || partner[std::size_t(j) - begin] != int64_t(begin + k) ||
        p.id[std::size_t(j)] < p.id[begin + k])
      continue;
    ++stats.collisions;
    stats.mergers += p.type[std::size_t(j)] == kRemoved || p.type[begin + k] == kRemoved;
    stats.radiated += radiated[k];
  }
  return stats;
}

double cloud_viscosity(const ParticleView& p, const ActiveSet& active, const Box& box,
                       const CloudViscosityParams& params, std::size_t begin, std::size_t end,
                       double tick_len, CpuCloudViscosityScratch& sc) {
  const std::size_t n = end - begin;
  if (n < 2) return 0.0;
  const int k = std::min<int>(params.k_ngb, int(n) - 1);
  Vec3d lo = p.pos[begin], hi = p.pos[begin];
  for (std::size_t i = begin; i < end; ++i) {
    lo = {std::min(lo.x, p.pos[i].x), std::min(lo.y, p.pos[i].y), std::min(lo.z, p.pos[i].z)};
    hi = {std::max(hi.x, p.pos[i].x), std::max(hi.y, p.pos[i].y), std::max(hi.z, p.pos[i].z)};
  }
  const CloudGrid grid = make_viscosity_grid(lo, hi, n, k, box);
  std::vector<std::pair<uint64_t, uint32_t>> order(n);
  const auto sn = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t q = 0; q < sn; ++q)
    order[std::size_t(q)] = {cloud_key(grid, p.pos[begin + std::size_t(q)]), uint32_t(q)};
  parallel_sort(order.begin(), order.end(), std::less<>());
  sc.keys.resize(n);
  sc.local.resize(n);
  for (std::size_t q = 0; q < n; ++q) sc.keys[q] = order[q].first, sc.local[q] = order[q].second;
  sc.nbr.resize(n * std::size_t(k));
  sc.n_nbr.resize(n);
  sc.h.resize(n);
  sc.rho.resize(n);
  sc.c.resize(n);
  sc.dissipated.assign(n, 0.0);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t q = 0; q < sn; ++q) {
    NearestClouds nc;
    find_nearest_clouds(p, grid, sc.keys.data(), sc.local.data(), begin, n, box, uint32_t(q), k,
                        nc);
    const CloudFluid f = cloud_fluid(p, nc, begin, uint32_t(q), params.sigma_c);
    for (int m = 0; m < nc.n; ++m)
      sc.nbr[std::size_t(q) * std::size_t(k) + std::size_t(m)] = nc.j[m];
    sc.n_nbr[std::size_t(q)] = nc.n;
    sc.h[std::size_t(q)] = f.h;
    sc.rho[std::size_t(q)] = f.rho;
    sc.c[std::size_t(q)] = f.c;
  }
  // Accelerations after all densities (every cloud reads the others' h, rho, c), then the kicks
  // after all accelerations (every cloud reads the others' velocities).
  sc.acc.assign(n, Vec3d{0, 0, 0});
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t q = 0; q < sn; ++q) {
    const std::size_t i = begin + std::size_t(q);
    if (!active.contains(p.ti_end, i) || p.type[i] != kCloud) continue;
    sc.acc[std::size_t(q)] = cloud_viscous_acc(
        p, params, sc.nbr.data() + std::size_t(q) * std::size_t(k), sc.n_nbr[std::size_t(q)],
        sc.h.data(), sc.rho.data(), sc.c.data(), begin, uint32_t(q), box);
    if (params.courant > 0.0)
      record_viscosity_step_rate(p, params, sc.nbr.data() + std::size_t(q) * std::size_t(k),
                                 sc.n_nbr[std::size_t(q)], sc.h.data(), sc.c.data(), begin,
                                 uint32_t(q), box);
  }
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t q = 0; q < sn; ++q) {
    const std::size_t i = begin + std::size_t(q);
    if (!active.contains(p.ti_end, i) || p.type[i] != kCloud) continue;
    sc.dissipated[std::size_t(q)] =
        apply_viscous_kick(p, i, sc.acc[std::size_t(q)], particle_step(p, i, tick_len));
  }
  double total = 0.0;
  for (double e : sc.dissipated) total += e;  // store order: the same in any thread order
  return total;
}

void limit_cloud_steps(const ParticleView& p, const ActiveSet& active, std::size_t begin,
                       std::size_t end) {
  const auto b = static_cast<std::ptrdiff_t>(begin), e = static_cast<std::ptrdiff_t>(end);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = b; i < e; ++i)
    if (active.contains(p.ti_end, std::size_t(i))) limit_cloud_step(p, std::size_t(i));
  // The clouds' receivers among the active gas (follow_cloud_steps).
  const auto ng = static_cast<std::ptrdiff_t>(active.gas_count(p.n_gas));
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < ng; ++k) limit_receiver_step(p, active[std::size_t(k)]);
}

CloudFormationStats form_clouds(const ParticleView& p, const ActiveSet& active,
                                const CloudFormationParams& params, double tick_len) {
  CloudFormationStats stats;
  const auto n = static_cast<std::ptrdiff_t>(active.gas_count(p.n_gas));
  double energy = 0.0;
  long formed = 0;
#pragma omp parallel for schedule(static) reduction(+ : energy, formed)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const bool was_gas = p.type[i] == kGas;
    energy += form_cloud_from_gas(params, p, i, particle_step(p, i, tick_len));
    formed += was_gas && p.type[i] == kCloud;
  }
  stats.thermal_energy = energy;
  stats.formed = formed;
  return stats;
}

std::array<double, kNumPhases> phase_masses(const ParticleView& p, const PhaseParams& params) {
  std::array<double, kNumPhases> m{};
  for (std::size_t i = 0; i < p.n; ++i) {
    const int ph = particle_phase(params, p, i);
    if (ph >= 0) m[std::size_t(ph)] += p.mass[i];
  }
  return m;
}

}  // namespace mpsph
