#include "setups/disk_vertical.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace mpsph {

namespace {

// Integral over [0, dz] of a profile exp(l0 + (l1 - l0) t) (piecewise exponential in z).
double exp_cell_integral(double l0, double l1, double dz) {
  const double d = l1 - l0;
  const double w0 = std::exp(l0);
  if (std::fabs(d) < 1e-8) return dz * w0;
  return dz * w0 * std::expm1(d) / d;
}

// ln w(z) = ln(rho / rho_0) at the nodes of one radius and the resulting structure tables.
struct Profiles {
  std::vector<double> ln_w;         // [i * nz + j]
  std::vector<double> half_column;  // per R node: int_0^zmax w dz
};

Profiles profiles_from_potential(const CylGrid& g, const std::vector<double>& phi, double cs2) {
  Profiles p;
  const int nR = g.nR(), nz = g.nz();
  p.ln_w.resize(phi.size());
  p.half_column.assign(nR, 0.0);
  for (int i = 0; i < nR; ++i) {
    for (int j = 0; j < nz; ++j)
      p.ln_w[g.index(i, j)] = std::fmax(-700.0, -(phi[g.index(i, j)] - phi[g.index(i, 0)]) / cs2);
    for (int j = 0; j < nz - 1; ++j)
      p.half_column[i] += exp_cell_integral(p.ln_w[g.index(i, j)], p.ln_w[g.index(i, j + 1)],
                                            g.z.node(j + 1) - g.z.node(j));
  }
  return p;
}

// Total potential at the nodes: spheres + stellar grid + gas grid.
std::vector<double> node_potential(const GalaxyPotential& pot, const std::vector<double>& gas_phi) {
  const CylGrid& g = pot.grid;
  std::vector<double> phi(gas_phi.size());
  for (int i = 0; i < g.nR(); ++i)
    for (int j = 0; j < g.nz(); ++j) {
      const double R = g.R.node(i), z = g.z.node(j), r = std::sqrt(R * R + z * z);
      double p =
          pot.halo.potential(r, pot.G) + pot.stars.values()[g.index(i, j)] + gas_phi[g.index(i, j)];
      if (pot.bulge.model_mass > 0) p += pot.bulge.potential(r, pot.G);
      phi[g.index(i, j)] = p;
    }
  return phi;
}

}  // namespace

std::vector<double> GasVerticalStructure::cell_masses() const {
  const int nR = grid.nR(), nz = grid.nz();
  std::vector<double> m(std::size_t(nR - 1) * (nz - 1));
  for (int i = 0; i < nR - 1; ++i) {
    const double ring = disk.mass_within(grid.R.node(i + 1)) - disk.mass_within(grid.R.node(i));
    for (int j = 0; j < nz - 1; ++j) {
      const double f0 = cumulative[grid.index(i, j + 1)] - cumulative[grid.index(i, j)];
      const double f1 = cumulative[grid.index(i + 1, j + 1)] - cumulative[grid.index(i + 1, j)];
      m[std::size_t(i) * (nz - 1) + j] = 0.25 * ring * (f0 + f1);
    }
  }
  return m;
}

double GasVerticalStructure::sample_height(double R, double u_node, double u_cell) const {
  double tr;
  const int i0 = grid.R.locate(R, &tr);
  const int i = u_node < tr ? i0 + 1 : i0;  // mixture of the two nodes' profiles, weights 1-t, t
  const int nz = grid.nz();
  const double* c = &cumulative[grid.index(i, 0)];
  const int j = int(std::upper_bound(c, c + nz, u_cell) - c) - 1;
  const int jc = std::clamp(j, 0, nz - 2);
  const double dz = grid.z.node(jc + 1) - grid.z.node(jc);
  const double frac = (u_cell - c[jc]) / std::fmax(c[jc + 1] - c[jc], 1e-300);
  // Invert the piecewise-exponential profile inside the cell: rho ~ exp(-s t), t in [0, 1].
  const double l0 = ln_rho.values()[grid.index(i, jc)], l1 = ln_rho.values()[grid.index(i, jc + 1)];
  const double s = l0 - l1;
  double t = frac;
  if (std::fabs(s) > 1e-8) t = -std::log1p(-frac * (-std::expm1(-s))) / s;
  return grid.z.node(jc) + std::clamp(t, 0.0, 1.0) * dz;
}

GasVerticalStructure solve_gas_equilibrium(GalaxyPotential& pot, const ExponentialDisk& gas,
                                           double cs2, double z_guess, int max_iterations,
                                           double tolerance) {
  if (!(cs2 > 0)) throw Error("disk galaxy: the gas sound speed must be positive");
  const CylGrid& g = pot.grid;
  const int nR = g.nR(), nz = g.nz();
  GasVerticalStructure out;
  out.grid = g;
  out.disk = gas;
  out.cs2 = cs2;

  // Start: sech^2(z / z_guess), i.e. ln w = 2 ln sech.
  Profiles prof;
  prof.ln_w.resize(std::size_t(nR) * nz);
  prof.half_column.assign(nR, 0.0);
  for (int i = 0; i < nR; ++i) {
    for (int j = 0; j < nz; ++j)
      prof.ln_w[g.index(i, j)] =
          -2.0 * std::log(std::cosh(std::fmin(g.z.node(j) / z_guess, 300.0)));
    for (int j = 0; j < nz - 1; ++j)
      prof.half_column[i] += exp_cell_integral(
          prof.ln_w[g.index(i, j)], prof.ln_w[g.index(i, j + 1)], g.z.node(j + 1) - g.z.node(j));
  }
  auto build = [&](const Profiles& p) {
    std::vector<double> ln_rho(p.ln_w.size());
    out.cumulative.assign(p.ln_w.size(), 0.0);
    for (int i = 0; i < nR; ++i) {
      const double rho0 = gas.surface_density(g.R.node(i)) / (2.0 * p.half_column[i]);
      const double ln_rho0 = std::log(std::fmax(rho0, 1e-300));
      double acc = 0.0;
      for (int j = 0; j < nz; ++j) {
        ln_rho[g.index(i, j)] = ln_rho0 + p.ln_w[g.index(i, j)];
        out.cumulative[g.index(i, j)] = acc / p.half_column[i];
        if (j < nz - 1)
          acc += exp_cell_integral(p.ln_w[g.index(i, j)], p.ln_w[g.index(i, j + 1)],
                                   g.z.node(j + 1) - g.z.node(j));
      }
    }
    out.ln_rho = GridField(g, std::move(ln_rho));
  };
  build(prof);
  std::vector<double> gas_phi = ring_potential(g, out.cell_masses(), pot.G);
  for (int it = 1; it <= max_iterations; ++it) {
    const Profiles next = profiles_from_potential(g, node_potential(pot, gas_phi), cs2);
    double change = 0.0;
    for (int i = 0; i < nR; ++i)
      change = std::fmax(change, std::fabs(std::log(prof.half_column[i] / next.half_column[i])));
    prof = next;
    build(prof);
    gas_phi = ring_potential(g, out.cell_masses(), pot.G);
    out.iterations = it;
    out.last_change = change;
    if (change < tolerance) break;
  }
  pot.gas = GridField(g, std::move(gas_phi));
  pot.gas_mass = gas.mass;
  return out;
}

}  // namespace mpsph
