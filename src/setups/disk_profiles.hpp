// Analytic profiles of the disk-galaxy components: the Hernquist (1990) sphere (halo, bulge) and
// the exponential disk, each truncated at a radius, with the masses of their particles.
#pragma once

#include <cmath>

#include "core/constants.hpp"

namespace mpsph {

// Hernquist sphere rho = M a / (2 pi r (r+a)^3) sampled inside r_max: M is the untruncated
// model's mass, chosen so that the particles (r < r_max) carry `particle_mass`.
struct HernquistSphere {
  double model_mass = 0.0;  // M
  double a = 1.0;
  double r_max = 0.0;

  static HernquistSphere with_particle_mass(double particle_mass, double a, double r_max) {
    return {particle_mass / std::pow(r_max / (r_max + a), 2), a, r_max};
  }
  double mass_within(double r) const {
    const double rr = std::fmin(r, r_max);
    return model_mass * rr * rr / ((rr + a) * (rr + a));
  }
  double density(double r) const {
    if (r > r_max) return 0.0;
    return model_mass * a / (2.0 * cgs::kPi * r * std::pow(r + a, 3));
  }
  // Potential of the truncated sphere (zero at infinity).
  double potential(double r, double G) const {
    const double m_in = mass_within(r_max);
    if (r >= r_max) return -G * m_in / r;
    return -G * model_mass * (1.0 / (r + a) - 1.0 / (r_max + a)) - G * m_in / r_max;
  }
  // d Phi / dr = G M(<r) / r^2.
  double radial_force(double r, double G) const {
    return r > 0 ? G * mass_within(r) / (r * r) : 0.0;
  }
  // d^2 Phi / dr^2 inside r_max: d/dr [G M/(r+a)^2] = -2 G M/(r+a)^3.
  double radial_force_derivative(double r, double G) const {
    if (r >= r_max) return -2.0 * G * mass_within(r_max) / (r * r * r);
    return -2.0 * G * model_mass / std::pow(r + a, 3);
  }
};

// Exponential disk Sigma = Sigma0 exp(-R/Rd) for R < r_max, of total mass M.
struct ExponentialDisk {
  double mass = 0.0;
  double Rd = 1.0;
  double r_max = 1.0;

  // Fraction of an untruncated exponential disk's mass inside x = R/Rd.
  static double cumulative(double x) { return 1.0 - (1.0 + x) * std::exp(-x); }
  double sigma0() const { return mass / (2.0 * cgs::kPi * Rd * Rd * cumulative(r_max / Rd)); }
  double surface_density(double R) const { return R <= r_max ? sigma0() * std::exp(-R / Rd) : 0.0; }
  double mass_within(double R) const {
    return mass * cumulative(std::fmin(R, r_max) / Rd) / cumulative(r_max / Rd);
  }
  // R with mass_within(R) = q * mass, q in [0, 1] (Newton on the cumulative, bracketed).
  double radius_of_fraction(double q) const {
    const double target = q * cumulative(r_max / Rd);
    double lo = 0.0, hi = r_max / Rd, x = 1.678 * q * (r_max / Rd > 1.678 ? 1.0 : r_max / Rd);
    for (int it = 0; it < 100; ++it) {
      const double f = cumulative(x) - target;
      if (f > 0)
        hi = x;
      else
        lo = x;
      const double step = f / (x * std::exp(-x) + 1e-300);  // dF/dx = x e^-x
      double xn = x - step;
      if (!(xn > lo && xn < hi)) xn = 0.5 * (lo + hi);
      if (std::fabs(xn - x) < 1e-14 * (1.0 + x)) return xn * Rd;
      x = xn;
    }
    return x * Rd;
  }
};

}  // namespace mpsph
