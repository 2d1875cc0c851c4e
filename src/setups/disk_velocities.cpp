#include "setups/disk_velocities.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/constants.hpp"
#include "core/rng.hpp"

namespace mpsph {

namespace {

// ln sech(x) for x >= 0 without overflow.
double ln_sech(double x) {
  return -x - std::log1p(std::exp(-2.0 * x)) + std::log(2.0);
}

// Standard normal number from the draws `draw`, `draw + 1` (Box-Muller).
double gaussian(uint64_t id, uint64_t seed, uint32_t draw) {
  const double u1 = 1.0 - random_uniform(id, seed, kStreamSetup, draw);  // (0, 1]
  const double u2 = random_uniform(id, seed, kStreamSetup, draw + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * cgs::kPi * u2);
}

// Simpson sub-intervals per grid cell for the vertical integrals.
constexpr int kSub = 8;

}  // namespace

double kappa2(const GalaxyPotential& pot, double R) {
  return pot.d2phi_dR2(R, 0.0) + 3.0 * pot.dphi_dR(R, 0.0) / R;
}

StellarDiskKinematics stellar_disk_kinematics(const GalaxyPotential& pot,
                                              const ExponentialDisk& disk, double z0) {
  const CylGrid& g = pot.grid;
  const int nR = g.nR(), nz = g.nz();
  StellarDiskKinematics k;
  k.disk = disk;
  k.z0 = z0;
  std::vector<double> s2(std::size_t(nR) * nz, 0.0);
  k.sigma2_mass_weighted.assign(nR, 0.0);
  for (int i = 0; i < nR; ++i) {
    const double R = g.R.node(i);
    // sigma_z^2(z_j) = int_{z_j}^{zmax} [rho(z)/rho(z_j)] dPhi/dz dz, built from the top down:
    // I_j = int_{z_j}^{z_j+1} [rho/rho_j] F dz + [rho_{j+1}/rho_j] I_{j+1}.
    double I = 0.0, weighted = 0.0;
    for (int j = nz - 2; j >= 0; --j) {
      const double za = g.z.node(j), zb = g.z.node(j + 1), h = (zb - za) / kSub;
      const double ln_rho_a = 2.0 * ln_sech(za / z0);
      double cell = 0.0, cell_w = 0.0;
      for (int q = 0; q <= kSub; ++q) {
        const double z = za + q * h;
        const double w = (q == 0 || q == kSub) ? 1.0 : (q % 2 ? 4.0 : 2.0);
        const double F = pot.dphi_dz(R, z);
        const double ln_rho = 2.0 * ln_sech(z / z0);
        cell += w * std::exp(ln_rho - ln_rho_a) * F;
        cell_w += w * z * std::exp(ln_rho) / z0 * F;  // (2/Sigma) z rho F = z sech^2/z0 F
      }
      I = cell * h / 3.0 + std::exp(2.0 * ln_sech(zb / z0) - ln_rho_a) * I;
      weighted += cell_w * h / 3.0;
      s2[g.index(i, j)] = I;
    }
    s2[g.index(i, nz - 1)] = 0.0;
    k.sigma2_mass_weighted[i] = weighted;
  }
  // Asymmetric drift at the nodes (d ln sigma^2 / dR by finite differences of ln sigma^2).
  std::vector<double> ln_s2(s2.size());
  for (std::size_t n = 0; n < s2.size(); ++n) ln_s2[n] = std::log(std::fmax(s2[n], 1e-300));
  const GridField ln_s2_field(g, ln_s2);
  std::vector<double> vphi2(s2.size()), sphi2(s2.size());
  for (int i = 0; i < nR; ++i) {
    const double R = g.R.node(i);
    for (int j = 0; j < nz; ++j) {
      const double z = g.z.node(j);
      const std::size_t n = std::size_t(g.index(i, j));
      const double dR = pot.dphi_dR(R, z);
      const double ratio =
          (R > 0 && dR > 0) ? (R * pot.d2phi_dR2(R, z) + 3.0 * dR) / (4.0 * dR) : 1.0;
      const double dln_s2 = R * ln_s2_field.dR()[n];
      vphi2[n] = R * dR + s2[n] * (1.0 - ratio - R / disk.Rd + dln_s2);
      sphi2[n] = s2[n] * std::fmax(ratio, 0.0);
    }
  }
  k.sigma2 = GridField(g, std::move(s2));
  k.vphi2 = GridField(g, std::move(vphi2));
  k.sigma_phi2 = GridField(g, std::move(sphi2));
  return k;
}

SphericalJeans::SphericalJeans(const HernquistSphere& comp, const GalaxyPotential& pot,
                               const std::vector<double>& disk_cells) {
  // M_disk(<r): the grid cells (both mirrors) by the spherical radius of their centres.
  const CylGrid& g = pot.grid;
  std::vector<std::pair<double, double>> cells;
  for (int i = 0; i < g.nR() - 1; ++i)
    for (int j = 0; j < g.nz() - 1; ++j) {
      const double R = 0.5 * (g.R.node(i) + g.R.node(i + 1));
      const double z = 0.5 * (g.z.node(j) + g.z.node(j + 1));
      cells.push_back(
          {std::sqrt(R * R + z * z), 2.0 * disk_cells[std::size_t(i) * (g.nz() - 1) + j]});
    }
  std::sort(cells.begin(), cells.end());
  constexpr int kN = 400;
  const double r_lo = 1e-4 * comp.a, r_hi = comp.r_max;
  const double dl = std::log(r_hi / r_lo) / (kN - 1);
  ln_r_.resize(kN);
  sigma2_.assign(kN, 0.0);
  std::vector<double> integrand(kN);
  std::size_t c = 0;
  double m_disk = 0.0;
  for (int n = 0; n < kN; ++n) {
    const double r = r_lo * std::exp(dl * n);
    ln_r_[n] = std::log(r);
    while (c < cells.size() && cells[c].first <= r) m_disk += cells[c++].second;
    double m = pot.halo.mass_within(r) + m_disk;
    if (pot.bulge.model_mass > 0) m += pot.bulge.mass_within(r);
    integrand[n] = comp.density(r) * pot.G * m / (r * r) * r;  // d/d ln r
  }
  double I = 0.0;
  for (int n = kN - 1; n >= 0; --n) {
    if (n < kN - 1) I += 0.5 * dl * (integrand[n] + integrand[n + 1]);
    const double r = std::exp(ln_r_[n]);
    sigma2_[n] = I / comp.density(r);
  }
}

double SphericalJeans::sigma2(double r) const {
  const double l = std::log(std::fmax(r, 1e-300));
  if (l <= ln_r_.front()) return sigma2_.front();
  if (l >= ln_r_.back()) return sigma2_.back();
  const double dl = ln_r_[1] - ln_r_[0];
  const std::size_t n = std::min(std::size_t((l - ln_r_[0]) / dl), ln_r_.size() - 2);
  const double t = (l - ln_r_[n]) / dl;
  return (1 - t) * sigma2_[n] + t * sigma2_[n + 1];
}

Vec3d draw_isotropic_velocity(const SphericalJeans& jeans, const GalaxyPotential& pot,
                              const Vec3d& x, uint64_t id, uint64_t seed, uint32_t first_draw) {
  const double R = std::sqrt(x.x * x.x + x.y * x.y);
  const double r = std::sqrt(R * R + x.z * x.z);
  const double sigma = std::sqrt(std::fmax(jeans.sigma2(r), 0.0));
  const double v_max2 = 0.95 * 0.95 * 2.0 * std::fabs(pot.phi(R, x.z));
  for (uint32_t d = first_draw;; d += 6) {
    const Vec3d v{sigma * gaussian(id, seed, d), sigma * gaussian(id, seed, d + 2),
                  sigma * gaussian(id, seed, d + 4)};
    if (dot(v, v) < v_max2) return v;
  }
}

Vec3d draw_disk_star_velocity(const StellarDiskKinematics& kin, const GalaxyPotential& pot,
                              const Vec3d& x, uint64_t id, uint64_t seed, uint32_t first_draw) {
  const double R = std::sqrt(x.x * x.x + x.y * x.y), az = std::fabs(x.z);
  const double s = std::sqrt(std::fmax(kin.sigma2.value(R, az), 0.0));
  const double s_phi = std::sqrt(std::fmax(kin.sigma_phi2.value(R, az), 0.0));
  const double vphi_mean = std::sqrt(std::fmax(kin.vphi2.value(R, az), 0.0));
  const double c = R > 0 ? x.x / R : 1.0, sn = R > 0 ? x.y / R : 0.0;
  const double v_max2 = 0.95 * 0.95 * 2.0 * std::fabs(pot.phi(R, x.z));
  for (uint32_t d = first_draw;; d += 6) {
    const double vR = s * gaussian(id, seed, d), vz = s * gaussian(id, seed, d + 2);
    const double vphi = vphi_mean + s_phi * gaussian(id, seed, d + 4);
    const Vec3d v{vR * c - vphi * sn, vR * sn + vphi * c, vz};
    if (dot(v, v) < v_max2) return v;
  }
}

Vec3d gas_velocity(const GasVerticalStructure& gas, const GalaxyPotential& pot, const Vec3d& x) {
  const double R = std::sqrt(x.x * x.x + x.y * x.y), az = std::fabs(x.z);
  if (R <= 0) return {0, 0, 0};
  const double vphi2 = R * pot.dphi_dR(R, x.z) + R * gas.cs2 * gas.ln_rho.d_dR(R, az);
  const double vphi = std::sqrt(std::fmax(vphi2, 0.0));
  return {-vphi * x.y / R, vphi * x.x / R, 0.0};
}

}  // namespace mpsph
