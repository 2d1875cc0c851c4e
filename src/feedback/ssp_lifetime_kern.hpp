// Stellar lifetimes of Raiteri, Villata & Navarro (1996, A&A 315, 105, eq. 3; RVN96), with their
// metallicity dependence (PHYSICS.md section 7):
//   log10 t[yr] = a0 + a1 log10 m + a2 (log10 m)^2,
//   a0 = 10.13 + 0.07547 lZ - 0.008084 lZ^2, a1 = -4.424 - 0.7939 lZ - 0.1187 lZ^2,
//   a2 = 1.262 + 0.3385 lZ + 0.05417 lZ^2, lZ = log10 Z, Z clipped to [7e-5, 0.03].
// Over that range the parabola's vertex lies at m >= 100 Msun, so t(m) decreases over the IMF's
// 0.1-100 Msun and the inverse (the mass that dies at age t) is the root below the vertex.
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

constexpr double kRvn96ZMin = 7e-5;
constexpr double kRvn96ZMax = 0.03;

struct LifetimeCoeffs {
  double a0, a1, a2;
};

// Z clipped to the range of the RVN96 fit (every SSP quantity uses the clipped Z).
MPSPH_HD double clip_ssp_metallicity(double z) {
  return z < kRvn96ZMin ? kRvn96ZMin : (z > kRvn96ZMax ? kRvn96ZMax : z);
}

MPSPH_HD LifetimeCoeffs rvn96_lifetime_coeffs(double z) {
  const double lz = std::log10(clip_ssp_metallicity(z));
  return {10.13 + 0.07547 * lz - 0.008084 * lz * lz, -4.424 - 0.7939 * lz - 0.1187 * lz * lz,
          1.262 + 0.3385 * lz + 0.05417 * lz * lz};
}

// Lifetime [yr] of a star of mass m [Msun] and metallicity z.
MPSPH_HD double stellar_lifetime_yr(double m, double z) {
  const LifetimeCoeffs c = rvn96_lifetime_coeffs(z);
  const double x = std::log10(m);
  return std::pow(10.0, c.a0 + x * (c.a1 + x * c.a2));
}

// The mass [Msun] of the stars that die at age t_yr: the inverse of stellar_lifetime_yr on the
// decreasing branch. Ages before the shortest lifetime (the vertex) give the vertex mass (> 100
// Msun: no star of the IMF has died yet).
MPSPH_HD double dying_mass(double t_yr, double z) {
  const LifetimeCoeffs c = rvn96_lifetime_coeffs(z);
  const double disc = c.a1 * c.a1 - 4.0 * c.a2 * (c.a0 - std::log10(t_yr));
  const double x = disc > 0.0 ? (-c.a1 - std::sqrt(disc)) / (2.0 * c.a2) : -c.a1 / (2.0 * c.a2);
  return std::pow(10.0, x);
}

}  // namespace mpsph
