#include "setups/disk_potential.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace mpsph {

StretchedAxis::StretchedAxis(int n_nodes, double fine_scale, double x_max)
    : n(n_nodes), a(fine_scale), b(std::log1p(x_max / fine_scale) / double(n_nodes - 1)) {
  if (n_nodes < 3 || !(fine_scale > 0) || !(x_max > 0)) throw Error("disk grid: bad axis");
}

double StretchedAxis::node(int k) const {
  return a * std::expm1(b * k);
}

int StretchedAxis::locate(double x, double* t) const {
  const double s = std::log1p(std::fmax(x, 0.0) / a) / b;
  int k = int(std::floor(s));
  k = std::clamp(k, 0, n - 2);
  const double x0 = node(k), x1 = node(k + 1);
  *t = (x - x0) / (x1 - x0);
  return k;
}

namespace {

// Potential of a ring of unit mass and radius rc at height zc, at (R, z), over G: -1/AGM(D, D')
// with D, D' the largest and smallest distances to the ring (the complete elliptic integral
// 2 K(k)/(pi D) = 1/AGM(D, D'), since K(k) = pi / (2 AGM(1, k')) and the AGM is homogeneous).
inline double ring_phi(double R, double z, double rc, double zc) {
  const double dz2 = (z - zc) * (z - zc);
  double a = std::sqrt((R + rc) * (R + rc) + dz2);
  double b = std::sqrt((R - rc) * (R - rc) + dz2);
  while (a - b > 1e-13 * a) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return -1.0 / a;
}

// Potential at (R, z) of the cell (R0..R1, z0..z1) of mass m (uniform density), split into s x s
// sub-rings.
double cell_phi(double R, double z, double R0, double R1, double z0, double z1, double m, int s) {
  if (s == 1) return m * ring_phi(R, z, 0.5 * (R0 + R1), 0.5 * (z0 + z1));
  double sum_w = 0.0, acc = 0.0;
  for (int p = 0; p < s; ++p) {
    const double rc = R0 + (p + 0.5) * (R1 - R0) / s;
    for (int q = 0; q < s; ++q) {
      const double zc = z0 + (q + 0.5) * (z1 - z0) / s;
      sum_w += rc;
      acc += rc * ring_phi(R, z, rc, zc);
    }
  }
  return m * acc / sum_w;
}

// First and second derivatives at node k of f on nodes x (3-point formulas, non-uniform spacing).
// `symmetric`: f is even about x_0 = 0 (zero slope there).
void derivatives(const std::vector<double>& x, const std::vector<double>& f, bool symmetric,
                 std::vector<double>* d1, std::vector<double>* d2) {
  const std::size_t n = x.size();
  d1->assign(n, 0.0);
  d2->assign(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    double hm, hp, fm, fp;
    if (k == 0) {
      if (!symmetric) throw Error("disk grid: derivative at the first node");
      hm = hp = x[1] - x[0];
      fm = fp = f[1];
    } else if (k == n - 1) {
      // One-sided, second order: through nodes n-3, n-2, n-1.
      const double h1 = x[k] - x[k - 1], h2 = x[k - 1] - x[k - 2];
      const double f0 = f[k], f1 = f[k - 1], f2 = f[k - 2];
      const double s1 = (f0 - f1) / h1, s2 = (f1 - f2) / h2;
      (*d2)[k] = 2.0 * (s1 - s2) / (h1 + h2);
      (*d1)[k] = s1 + 0.5 * h1 * (*d2)[k];
      continue;
    } else {
      hm = x[k] - x[k - 1];
      hp = x[k + 1] - x[k];
      fm = f[k - 1];
      fp = f[k + 1];
    }
    const double f0 = f[k];
    (*d1)[k] = (hm * hm * fp - hp * hp * fm + (hp * hp - hm * hm) * f0) / (hm * hp * (hm + hp));
    (*d2)[k] = 2.0 * (hm * fp - (hm + hp) * f0 + hp * fm) / (hm * hp * (hm + hp));
  }
}

}  // namespace

std::vector<double> ring_potential(const CylGrid& g, const std::vector<double>& cell_mass,
                                   double G) {
  const int nR = g.nR(), nz = g.nz();
  if (cell_mass.size() != std::size_t(nR - 1) * (nz - 1)) throw Error("disk grid: cell masses");
  std::vector<double> Rn(nR), zn(nz);
  for (int i = 0; i < nR; ++i) Rn[i] = g.R.node(i);
  for (int j = 0; j < nz; ++j) zn[j] = g.z.node(j);
  std::vector<double> phi(std::size_t(nR) * nz, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
  for (int n = 0; n < nR * nz; ++n) {
    const int k = n / nz, l = n % nz;
    const double R = Rn[k], z = zn[l];
    double sum = 0.0;
    for (int i = 0; i < nR - 1; ++i) {
      const double R0 = Rn[i], R1 = Rn[i + 1], dR = R1 - R0, rc = 0.5 * (R0 + R1);
      for (int j = 0; j < nz - 1; ++j) {
        const double m = cell_mass[std::size_t(i) * (nz - 1) + j];
        if (m == 0.0) continue;
        const double z0 = zn[j], z1 = zn[j + 1], dz = z1 - z0, zc = 0.5 * (z0 + z1);
        const double reach2 = 4.0 * (dR * dR + dz * dz);
        const double dr2 = (R - rc) * (R - rc);
        const int s_up = dr2 + (z - zc) * (z - zc) < reach2 ? 6 : 1;
        const int s_dn = dr2 + (z + zc) * (z + zc) < reach2 ? 6 : 1;
        sum += cell_phi(R, z, R0, R1, z0, z1, m, s_up) + cell_phi(R, z, R0, R1, -z1, -z0, m, s_dn);
      }
    }
    phi[n] = G * sum;
  }
  return phi;
}

GridField::GridField(const CylGrid& g, std::vector<double> values) : g_(g), v_(std::move(values)) {
  const int nR = g.nR(), nz = g.nz();
  dR_.assign(v_.size(), 0.0);
  dz_.assign(v_.size(), 0.0);
  dRR_.assign(v_.size(), 0.0);
  std::vector<double> Rn(nR), zn(nz), f, d1, d2;
  for (int i = 0; i < nR; ++i) Rn[i] = g.R.node(i);
  for (int j = 0; j < nz; ++j) zn[j] = g.z.node(j);
  for (int j = 0; j < nz; ++j) {
    f.resize(nR);
    for (int i = 0; i < nR; ++i) f[i] = v_[g.index(i, j)];
    derivatives(Rn, f, true, &d1, &d2);
    for (int i = 0; i < nR; ++i) dR_[g.index(i, j)] = d1[i], dRR_[g.index(i, j)] = d2[i];
  }
  for (int i = 0; i < nR; ++i) {
    f.assign(v_.begin() + g.index(i, 0), v_.begin() + g.index(i, 0) + nz);
    derivatives(zn, f, true, &d1, &d2);
    for (int j = 0; j < nz; ++j) dz_[g.index(i, j)] = d1[j];
  }
}

double GridField::interp(const std::vector<double>& f, double R, double z) const {
  double tr, tz;
  const int i = g_.R.locate(R, &tr), j = g_.z.locate(z, &tz);
  const double f00 = f[g_.index(i, j)], f01 = f[g_.index(i, j + 1)];
  const double f10 = f[g_.index(i + 1, j)], f11 = f[g_.index(i + 1, j + 1)];
  return (1 - tr) * ((1 - tz) * f00 + tz * f01) + tr * ((1 - tz) * f10 + tz * f11);
}

bool GalaxyPotential::on_grid(double R, double z) const {
  return R <= grid.R.node(grid.nR() - 1) && std::fabs(z) <= grid.z.node(grid.nz() - 1);
}

namespace {

// Spherical component: Phi(r) and its cylindrical derivatives from dPhi/dr and d2Phi/dr2.
struct SphereTerms {
  double dR = 0, dz = 0, dRR = 0;
};

SphereTerms sphere_terms(const HernquistSphere& s, double R, double z, double G) {
  SphereTerms t;
  const double r = std::sqrt(R * R + z * z);
  if (r <= 0.0) return t;
  const double g = s.radial_force(r, G), gp = s.radial_force_derivative(r, G);
  t.dR = g * R / r;
  t.dz = g * z / r;
  // d2Phi/dR2 = Phi'' (R/r)^2 + Phi' (1/r - R^2/r^3).
  t.dRR = gp * (R * R) / (r * r) + g * (1.0 / r - R * R / (r * r * r));
  return t;
}

}  // namespace

double GalaxyPotential::phi(double R, double z) const {
  const double r = std::sqrt(R * R + z * z);
  double p = halo.potential(r, G) + (bulge.model_mass > 0 ? bulge.potential(r, G) : 0.0);
  if (on_grid(R, z)) {
    p += stars.value(R, std::fabs(z)) + gas.value(R, std::fabs(z));
  } else {
    p += -G * (stars_mass + gas_mass) / r;
  }
  return p;
}

double GalaxyPotential::dphi_dR(double R, double z) const {
  double d = sphere_terms(halo, R, z, G).dR;
  if (bulge.model_mass > 0) d += sphere_terms(bulge, R, z, G).dR;
  if (on_grid(R, z)) return d + stars.d_dR(R, std::fabs(z)) + gas.d_dR(R, std::fabs(z));
  const double r = std::sqrt(R * R + z * z);
  return d + G * (stars_mass + gas_mass) * R / (r * r * r);
}

double GalaxyPotential::dphi_dz(double R, double z) const {
  double d = sphere_terms(halo, R, z, G).dz;
  if (bulge.model_mass > 0) d += sphere_terms(bulge, R, z, G).dz;
  if (on_grid(R, z)) {
    const double sgn = z < 0 ? -1.0 : 1.0;
    return d + sgn * (stars.d_dz(R, std::fabs(z)) + gas.d_dz(R, std::fabs(z)));
  }
  const double r = std::sqrt(R * R + z * z);
  return d + G * (stars_mass + gas_mass) * z / (r * r * r);
}

double GalaxyPotential::d2phi_dR2(double R, double z) const {
  double d = sphere_terms(halo, R, z, G).dRR;
  if (bulge.model_mass > 0) d += sphere_terms(bulge, R, z, G).dRR;
  if (on_grid(R, z)) return d + stars.d2_dR2(R, std::fabs(z)) + gas.d2_dR2(R, std::fabs(z));
  const double r = std::sqrt(R * R + z * z);
  const double M = G * (stars_mass + gas_mass);
  return d + M * (1.0 / (r * r * r) - 3.0 * R * R / std::pow(r, 5));
}

std::vector<double> sech2_disk_cell_masses(const CylGrid& g, const ExponentialDisk& disk,
                                           double z0) {
  const int nR = g.nR(), nz = g.nz();
  std::vector<double> m(std::size_t(nR - 1) * (nz - 1));
  for (int i = 0; i < nR - 1; ++i) {
    const double ring = disk.mass_within(g.R.node(i + 1)) - disk.mass_within(g.R.node(i));
    for (int j = 0; j < nz - 1; ++j)
      m[std::size_t(i) * (nz - 1) + j] =
          0.5 * ring * (std::tanh(g.z.node(j + 1) / z0) - std::tanh(g.z.node(j) / z0));
  }
  return m;
}

}  // namespace mpsph
