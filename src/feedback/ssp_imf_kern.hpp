// Initial mass functions of the simple stellar populations (PHYSICS.md section 7): dN/dm per solar
// mass formed, normalised so that the integral of m dN/dm over 0.1-100 Msun is 1 Msun.
//   Salpeter (1955, ApJ 121, 161): dN/dm ~ m^-2.35 (default).
//   Kroupa (2001, MNRAS 322, 231, eq. 2): dN/dm ~ m^-1.3 below 0.5 Msun, ~ m^-2.3 above, continuous
//   at 0.5 Msun.
// The normalisations are closed forms of these power laws (the SSP tests integrate numerically).
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

enum class ImfKind : int { Salpeter = 0, Kroupa = 1 };

constexpr double kImfMassMin = 0.1;    // Msun
constexpr double kImfMassMax = 100.0;  // Msun

// Integral of m^p over [a, b] (p = -1 gives the logarithm).
MPSPH_HD double power_integral(double p, double a, double b) {
  if (std::fabs(p + 1.0) < 1e-12) return std::log(b / a);
  return (std::pow(b, p + 1.0) - std::pow(a, p + 1.0)) / (p + 1.0);
}

// dN/dm [Msun^-1 per Msun formed] at mass m [Msun]; 0 outside 0.1-100 Msun.
MPSPH_HD double imf_number_density(ImfKind imf, double m) {
  if (m < kImfMassMin || m > kImfMassMax) return 0.0;
  if (imf == ImfKind::Salpeter) {
    const double k = 1.0 / power_integral(-1.35, kImfMassMin, kImfMassMax);
    return k * std::pow(m, -2.35);
  }
  // Kroupa: A m^-1.3 (m < 0.5), A 0.5 m^-2.3 (m >= 0.5), continuous at 0.5 Msun.
  const double mass =
      power_integral(-0.3, kImfMassMin, 0.5) + 0.5 * power_integral(-1.3, 0.5, kImfMassMax);
  const double a = 1.0 / mass;
  return m < 0.5 ? a * std::pow(m, -1.3) : a * 0.5 * std::pow(m, -2.3);
}

}  // namespace mpsph
