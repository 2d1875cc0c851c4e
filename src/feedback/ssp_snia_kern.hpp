// Cumulative number of SN Ia per Msun formed up to age t (PHYSICS.md section 7), two options:
//
// Binary (RVN96 section 2.3, after Greggio & Renzini 1983): a fraction A of the IMF between 3 and
// 16 Msun are binaries of total mass m_B; the secondary mass fraction mu = m_2 / m_B follows
// f(mu) = 2^(1+g) (1+g) mu^g on [0, 1/2], g = 2; each binary explodes as a SN Ia when its
// secondary dies, and m_2 <= 8 Msun (the primary, m_B - m_2, made a white dwarf: m_B - m_2 <= 8).
// With m_d(t) the mass dying at age t, the binaries that have exploded are those with
// m_2 >= m_d(t), so
//   N_Ia(t) = A int_3^16 phi(m_B) [1 - (2 mu_lo)^(1+g)] dm_B,
//   mu_lo = max(m_d / m_B, (m_B - 8) / m_B), the bracket taken as 0 where mu_lo >= 1/2,
// since int_{mu_lo}^{1/2} f(mu) dmu = 1 - (2 mu_lo)^(1+g).
//
// Dtd: a t^-1 delay-time distribution from t_min on, normalised to N_tot SN Ia per Msun formed
// between t_min and t_max (Maoz, Mannucci & Brandt 2012, MNRAS 426, 3282: 1.3e-3 per Msun over a
// Hubble time): N_Ia(t) = N_tot ln(t / t_min) / ln(t_max / t_min), clamped to [0, N_tot].
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "feedback/ssp_integrate_kern.hpp"
#include "feedback/ssp_model.hpp"

namespace mpsph {

constexpr double kSnIaBinaryMin = 3.0;   // Msun, lightest binary
constexpr double kSnIaBinaryMax = 16.0;  // Msun, heaviest binary
constexpr double kSnIaSecondaryGamma = 2.0;

// The fraction of binaries of mass mb [Msun] whose secondary is at least m_d.
MPSPH_HD double snia_exploded_fraction(double mb, double m_d) {
  const double mu_a = m_d / mb, mu_b = (mb - 8.0) / mb;
  const double mu = mu_a > mu_b ? mu_a : mu_b;
  if (mu >= 0.5) return 0.0;
  return 1.0 - std::pow(2.0 * (mu > 0.0 ? mu : 0.0), 1.0 + kSnIaSecondaryGamma);
}

struct SnIaBinaryIntegrand {
  ImfKind imf;
  double m_d;
  MPSPH_HD double operator()(double mb) const {
    return imf_number_density(imf, mb) * snia_exploded_fraction(mb, m_d);
  }
};

// Dtd: SN Ia per Msun formed up to age t_yr.
MPSPH_HD double snia_dtd_cumulative(const SspModel& s, double t_yr) {
  if (t_yr <= s.snia_dtd_t_min_yr) return 0.0;
  const double f =
      std::log(t_yr / s.snia_dtd_t_min_yr) / std::log(s.snia_dtd_t_max_yr / s.snia_dtd_t_min_yr);
  return s.snia_dtd_number * (f < 1.0 ? f : 1.0);
}

// Binary: SN Ia per Msun formed once the stars down to mass m_d [Msun] have died (a function of
// the dying mass alone, so the SSP table holds it on its mass axis).
MPSPH_HD double snia_binary_cumulative(const SspModel& s, double m_d) {
  if (m_d >= 8.0) return 0.0;
  // The integrand has kinks where mu_lo switches branch (m_B = m_d + 8) and where it reaches 1/2
  // (m_B = 2 m_d): integrate piecewise between them.
  const double cuts[2] = {2.0 * m_d < m_d + 8.0 ? 2.0 * m_d : m_d + 8.0,
                          2.0 * m_d < m_d + 8.0 ? m_d + 8.0 : 2.0 * m_d};
  const SnIaBinaryIntegrand f{s.imf, m_d};
  double lo = kSnIaBinaryMin, sum = 0.0;
  for (int k = 0; k <= 2; ++k) {
    double hi = k < 2 ? cuts[k] : kSnIaBinaryMax;
    if (hi > kSnIaBinaryMax) hi = kSnIaBinaryMax;
    if (hi > lo) {
      sum += integrate_log_mass(f, lo, hi);
      lo = hi;
    }
  }
  return s.snia_binary_fraction * sum;
}

}  // namespace mpsph
