#include "setups/disk_galaxy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cooling/cooling_kern.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "setups/disk_sampling.hpp"

namespace mpsph {

namespace {

void check(const DiskGalaxyParams& p, const UnitSystem& u) {
  if (u.nbody)
    throw Error(
        "disk galaxy: needs physical units (units.system: physical) for the gas "
        "temperature");
  if (p.halo_r_max <= p.halo_scale_radius * 1e-3 || p.bulge_r_max <= p.bulge_scale_radius * 1e-3)
    throw Error("disk galaxy: halo.r_max and bulge.r_max must exceed 1e-3 scale radii");
  if (p.disk_r_max < 2.0 * p.disk_scale_length)
    throw Error("disk galaxy: disk.r_max must be at least 2 disk scale lengths");
  if (p.bulge_mass > 0 && p.n_bulge < 1)
    throw Error("disk galaxy: bulge.mass > 0 needs bulge.n >= 1");
  if (p.gas_fraction > 0 && p.n_gas < 1)
    throw Error("disk galaxy: disk.gas_fraction > 0 needs gas.n >= 1");
  if (p.gas_fraction >= 1)
    throw Error("disk galaxy: disk.gas_fraction must be below 1 (the stellar disk needs mass)");
}

}  // namespace

DiskGalaxyModel build_disk_galaxy_model(const DiskGalaxyParams& p, const UnitSystem& units) {
  check(p, units);
  DiskGalaxyModel m;
  m.params = p;
  m.units = units;
  m.cs2 = cgs::k_B * p.gas_temperature / (p.gas_mu * cgs::m_H) /
          (units.velocity_cgs * units.velocity_cgs);
  const double Rg = p.gas_scale_length > 0 ? p.gas_scale_length : p.disk_scale_length;
  m.stars = {p.disk_mass * (1.0 - p.gas_fraction), p.disk_scale_length, p.disk_r_max};
  m.gas = {p.disk_mass * p.gas_fraction, Rg, p.disk_r_max};

  GalaxyPotential& pot = m.pot;
  pot.G = units.G;
  pot.halo = HernquistSphere::with_particle_mass(p.halo_mass, p.halo_scale_radius, p.halo_r_max);
  if (p.bulge_mass > 0)
    pot.bulge =
        HernquistSphere::with_particle_mass(p.bulge_mass, p.bulge_scale_radius, p.bulge_r_max);
  pot.grid.R = StretchedAxis(p.grid_n_R, 0.25 * std::min(p.disk_scale_length, Rg), p.disk_r_max);
  pot.grid.z = StretchedAxis(p.grid_n_z, p.disk_scale_height / 8.0, p.disk_r_max);
  pot.stars = GridField(
      pot.grid,
      ring_potential(pot.grid, sech2_disk_cell_masses(pot.grid, m.stars, p.disk_scale_height),
                     pot.G));
  pot.stars_mass = m.stars.mass;
  if (m.gas.mass > 0) {
    m.gas_structure = solve_gas_equilibrium(pot, m.gas, m.cs2, p.disk_scale_height);
  } else {
    pot.gas = GridField(pot.grid, std::vector<double>(std::size_t(p.grid_n_R) * p.grid_n_z, 0.0));
  }
  m.stellar = stellar_disk_kinematics(pot, m.stars, p.disk_scale_height);
  return m;
}

DiskProfileRow disk_profile_row(const DiskGalaxyModel& m, double R) {
  const GalaxyPotential& pot = m.pot;
  DiskProfileRow r;
  r.R = R;
  auto v = [](double v2) { return std::sqrt(std::fmax(v2, 0.0)); };
  r.vc_halo = v(pot.vc2_halo(R));
  r.vc_bulge = pot.bulge.model_mass > 0 ? v(pot.vc2_bulge(R)) : 0.0;
  r.vc_stars = v(pot.vc2_stars(R));
  r.vc_gas = v(pot.vc2_gas(R));
  r.vc_total = v(R * pot.dphi_dR(R, 0.0));
  r.sigma_stars = m.stars.surface_density(R);
  r.sigma_gas = m.gas.mass > 0 ? m.gas.surface_density(R) : 0.0;
  const double k2 = kappa2(pot, R);
  r.kappa = v(k2);
  // Mass-weighted sigma_R^2, linear between R nodes.
  double t;
  const int i = pot.grid.R.locate(R, &t);
  const auto& s2 = m.stellar.sigma2_mass_weighted;
  r.sigma_R = v((1 - t) * s2[i] + t * s2[i + 1]);
  r.Q_stars = r.sigma_R * r.kappa / (3.36 * pot.G * r.sigma_stars);
  if (r.sigma_gas > 0) {
    r.Q_gas = std::sqrt(m.cs2) * r.kappa / (cgs::kPi * pot.G * r.sigma_gas);
    r.gas_half_height = m.gas_structure.sample_height(R, 0.0, 0.5) * (1 - t) +
                        m.gas_structure.sample_height(R, 1.0, 0.5) * t;
  }
  return r;
}

std::string disk_profile_table(const DiskGalaxyModel& m) {
  const UnitSystem& u = m.units;
  const double L = u.length_cgs / cgs::kpc, V = u.velocity_cgs / cgs::km_s;
  const double S = u.mass_cgs / cgs::Msun / std::pow(u.length_cgs / cgs::pc, 2);
  std::string out = m.params.derivation;
  out +=
      "disk galaxy: circular velocity per component, surface densities, stellar sigma_R and "
      "Toomre Q\n"
      "    R[kpc]  vc_halo vc_bulge vc_stars  vc_gas vc_total [km/s]  Sigma_*  Sigma_gas "
      "[Msun/pc^2]  sigma_R[km/s]  Q_*    Q_gas  z_half,gas[kpc]\n";
  const double Rd = m.params.disk_scale_length;
  for (double f : {0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0}) {
    const double R = f * Rd;
    if (R > m.params.disk_r_max) break;
    const DiskProfileRow r = disk_profile_row(m, R);
    char line[320];
    std::snprintf(line, sizeof line,
                  "  %8.3f %8.1f %8.1f %8.1f %8.1f %8.1f        %9.3g %9.3g              %8.2f  "
                  "%6.2f %6.2f  %8.4f\n",
                  R * L, r.vc_halo * V, r.vc_bulge * V, r.vc_stars * V, r.vc_gas * V,
                  r.vc_total * V, r.sigma_stars * S, r.sigma_gas * S, r.sigma_R * V, r.Q_stars,
                  r.Q_gas, r.gas_half_height * L);
    out += line;
  }
  if (m.gas.mass > 0) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "  gas vertical equilibrium: %d iterations, last change of ln rho_0 %.2e; "
                  "c_s = %.2f km/s\n",
                  m.gas_structure.iterations, m.gas_structure.last_change, std::sqrt(m.cs2) * V);
    out += line;
  }
  return out;
}

std::size_t disk_galaxy_particles(const DiskGalaxyModel& m) {
  const DiskGalaxyParams& p = m.params;
  return (m.gas.mass > 0 ? std::size_t(p.n_gas) : 0) + std::size_t(p.n_halo) +
         std::size_t(p.n_disk) + (p.bulge_mass > 0 ? std::size_t(p.n_bulge) : 0);
}

ParticleStore sample_disk_galaxy(const DiskGalaxyModel& m, double gamma, uint64_t id_offset,
                                 int galaxy_id) {
  ParticleStore s =
      sample_disk_galaxy_range(m, gamma, 0, disk_galaxy_particles(m), id_offset, galaxy_id);
  const std::size_t n = s.size();
  // Zero total momentum: the halo's Gaussian draws leave ~sigma/sqrt(n) (~2 km/s at n = 10^4).
  // The centre of mass is left where it falls, near the cusp (a shift of it by the outer halo's
  // noise would move the centre by ~1 kpc; hernquist.hpp).
  Vec3d p_sum{0, 0, 0};
  double m_sum = 0;
  for (std::size_t i = 0; i < n; ++i) p_sum += s.mass[i] * s.vel[i], m_sum += s.mass[i];
  for (std::size_t i = 0; i < n; ++i) s.vel[i] -= (1.0 / m_sum) * p_sum;
  return s;
}

ParticleStore sample_disk_galaxy_range(const DiskGalaxyModel& m, double gamma, std::size_t first,
                                       std::size_t count, uint64_t id_offset, int galaxy_id) {
  const DiskGalaxyParams& p = m.params;
  const std::size_t n_gas = m.gas.mass > 0 ? std::size_t(p.n_gas) : 0;
  const std::size_t n_halo = std::size_t(p.n_halo), n_disk = std::size_t(p.n_disk);
  const std::size_t n_bulge = p.bulge_mass > 0 ? std::size_t(p.n_bulge) : 0;
  const std::size_t n_all = disk_galaxy_particles(m);
  if (first + count > n_all)
    throw Error("disk galaxy: particles " + std::to_string(first) + " to " +
                std::to_string(first + count) + " asked for; it has " + std::to_string(n_all));
  const std::size_t n = count;
  // Stellar + gas cell masses of the grid: the disks' share of M(<r) in the spherical Jeans
  // equation.
  std::vector<double> disk_cells = sech2_disk_cell_masses(m.pot.grid, m.stars, p.disk_scale_height);
  if (n_gas) {
    const std::vector<double> g = m.gas_structure.cell_masses();
    for (std::size_t k = 0; k < disk_cells.size(); ++k) disk_cells[k] += g[k];
  }
  const SphericalJeans halo_jeans(m.pot.halo, m.pot, disk_cells);
  const SphericalJeans bulge_jeans =
      n_bulge ? SphericalJeans(m.pot.bulge, m.pot, disk_cells) : halo_jeans;
  const double u_gas = m.cs2 / (gamma - 1.0);
  const MetalFractions metals = scaled_solar_metals(p.hydrogen_fraction, p.fe_h);
  const double z_max = m.pot.grid.z.node(m.pot.grid.nz() - 1);

  ParticleStore s;
  s.resize(n);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = first + k;  // the particle's index in the whole galaxy
    const uint64_t id = id_offset + i + 1;
    Vec3d x, v;
    uint8_t type;
    double mass;
    if (i < n_gas) {
      x = sample_gas_disk_position(m.gas_structure, id, p.seed);
      v = gas_velocity(m.gas_structure, m.pot, x);
      type = kGas;
      mass = m.gas.mass / double(n_gas);
    } else if (i < n_gas + n_halo) {
      x = sample_hernquist_position(m.pot.halo, id, p.seed);
      v = draw_isotropic_velocity(halo_jeans, m.pot, x, id, p.seed, 10);
      type = kDarkMatter;
      mass = p.halo_mass / double(n_halo);
    } else if (i < n_gas + n_halo + n_disk) {
      x = sample_sech2_disk_position(m.stars, p.disk_scale_height, z_max, id, p.seed);
      v = draw_disk_star_velocity(m.stellar, m.pot, x, id, p.seed, 1000);
      type = kOldStar;
      mass = m.stars.mass / double(n_disk);
    } else {
      x = sample_hernquist_position(m.pot.bulge, id, p.seed);
      v = draw_isotropic_velocity(bulge_jeans, m.pot, x, id, p.seed, 10);
      type = kOldStar;
      mass = p.bulge_mass / double(n_bulge);
    }
    s.pos[k] = x;
    s.vel[k] = v;
    s.mass[k] = mass;
    s.id[k] = id;
    s.type[k] = type;
    s.galaxy_id[k] = galaxy_id;
    s.x_h[k] = p.hydrogen_fraction;
    s.z_fe[k] = metals.z_fe;
    s.z_o[k] = metals.z_o;
    if (type == kGas) {
      s.u[k] = u_gas;
      // A first guess of h (the run iterates it): 50 neighbours in the model's density, or in its
      // surface density where the kernel is wider than the gas layer (the larger of the two).
      const double R = std::sqrt(x.x * x.x + x.y * x.y);
      const double rho = std::exp(m.gas_structure.ln_rho.value(R, std::fabs(x.z)));
      const double h3 = 0.5 * std::cbrt(3.0 * 50.0 * mass / (4.0 * cgs::kPi * rho));
      const double h2 = 0.5 * std::sqrt(50.0 * mass / (cgs::kPi * m.gas.surface_density(R)));
      s.h[k] = float(std::fmin(std::fmax(h3, h2), p.disk_r_max));
    }
  }
  return s;
}

}  // namespace mpsph
