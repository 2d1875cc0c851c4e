#include "starform/starform.hpp"

#include <cmath>
#include <vector>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

StarformModel::StarformModel(const StarformParams& p, const UnitSystem& units, bool u_integrated)
    : kind(p.kind) {
  if (p.kind == StarformKind::None) throw Error("starform: model none has no star formation");
  if (units.nbody)
    throw Error(std::string("starform.model ") + starform_model_name(p.kind) +
                " needs physical units (its thresholds are in K, cm^-3 and Msun/pc^2), not "
                "N-body units");
  const double surface_cgs = units.mass_cgs / (units.length_cgs * units.length_cgs);
  const double rho_cgs = units.mass_cgs / (units.length_cgs * units.length_cgs * units.length_cgs);
  msun_per_mass = units.mass_cgs / cgs::Msun;
  yr_per_time = units.time_cgs() / cgs::year;
  erg_per_energy = units.mass_cgs * units.velocity_cgs * units.velocity_cgs;

  clouds.jeans = p.kind == StarformKind::Clouds;
  clouds.at_coalescence =
      p.kind == StarformKind::Clouds && p.clouds_trigger == CloudsTrigger::Coalescence;
  clouds.eps = p.kind == StarformKind::Clouds ? p.eps_sf : p.eps_ff;
  clouds.pi_sigma = cgs::kPi * p.sigma_cl_Msun_pc2 * cgs::Msun / (cgs::pc * cgs::pc) / surface_cgs;
  clouds.G = units.G;
  clouds.c_cloud = std::sqrt(cgs::k_B * p.cloud_T_K / (p.cloud_mu * cgs::m_H)) / units.velocity_cgs;

  katz.c_star = p.c_star;
  katz.G = units.G;
  katz.n_sf = p.n_sf_cm3;
  katz.T_sf = p.T_sf_K;
  katz.mu = MuModel{p.mu_variable, p.mu};
  katz.u_to_T = (p.gamma - 1.0) * cgs::m_H * units.velocity_cgs * units.velocity_cgs / cgs::k_B;
  katz.nH_per_rho = rho_cgs / cgs::m_H;
  katz.x_h_default = p.hydrogen_fraction;
  katz.u_integrated = u_integrated;
  katz.cooling_time = p.cooling_on;
}

std::size_t finish_spawned_stars(const ParticleView& p, std::size_t begin, std::size_t end,
                                 double decided_at) {
  long finished = 0;
  const auto b = static_cast<std::ptrdiff_t>(begin), e = static_cast<std::ptrdiff_t>(end);
#pragma omp parallel for schedule(static) reduction(+ : finished)
  for (std::ptrdiff_t i = b; i < e; ++i)
    finished += finish_spawned_star(p, std::size_t(i), decided_at);
  return std::size_t(finished);
}

StarformStats form_stars(const ParticleView& p, const ActiveSet& active, const StarformModel& m,
                         double tick_len, long step, double time) {
  StarformStats stats;
  const bool katz = m.kind == StarformKind::Katz;
  // Katz: the active gas (the first entries of the active set); clouds: every active particle
  // (cloud_form_star skips what is not a cloud).
  const std::size_t n = katz ? active.gas_count(p.n_gas) : active.count(p.n);
  std::vector<double> mass(n, 0.0), thermal(katz ? n : 0, 0.0);
  const auto sn = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < sn; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const double dt = particle_step(p, i, tick_len);
    if (katz) {
      const KatzResult r = katz_form_star(m.katz, p, i, dt, step, time);
      mass[std::size_t(k)] = r.mass;
      thermal[std::size_t(k)] = r.thermal;
    } else {
      mass[std::size_t(k)] = cloud_form_star(m.clouds, p, i, dt, step, time);
    }
  }
  // In the active set's (store) order: the same totals in any thread order.
  for (std::size_t k = 0; k < n; ++k) {
    stats.mass += mass[k];
    stats.stars += mass[k] > 0.0;
    if (katz) stats.thermal += thermal[k];
  }
  return stats;
}

double stellar_mass_formed(const ParticleView& p) {
  double m = 0.0;
  for (std::size_t i = 0; i < p.n; ++i) m += formed_stellar_mass(p, i);
  return m;
}

}  // namespace mpsph
