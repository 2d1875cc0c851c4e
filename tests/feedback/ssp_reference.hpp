// An independent reference for the SSP tests: the same integrals as ssp_release_kern.hpp written
// differently - a plain trapezoid rule on a uniform grid in m (not Gauss-Legendre in ln m), the
// dying mass by bisection on the RVN96 formula written out here (not the quadratic root), the IMF
// normalised numerically, and the SN Ia binaries as the double integral over binary and secondary
// mass of their definition (not the closed form of the secondary distribution).
#pragma once

#include <cmath>
#include <functional>

#include "feedback/ssp_model.hpp"
#include "feedback/ssp_yields_kern.hpp"

namespace mpsph::test {

inline double trapezoid(const std::function<double(double)>& f, double a, double b, int n) {
  if (!(b > a)) return 0.0;
  const double h = (b - a) / n;
  double s = 0.5 * (f(a) + f(b));
  for (int k = 1; k < n; ++k) s += f(a + k * h);
  return s * h;
}

// log10 t[yr] of RVN96 eq. 3, written out.
inline double ref_log_lifetime(double m, double z) {
  z = std::fmin(std::fmax(z, 7e-5), 0.03);
  const double l = std::log10(z), x = std::log10(m);
  return (10.13 + 0.07547 * l - 0.008084 * l * l) + (-4.424 - 0.7939 * l - 0.1187 * l * l) * x +
         (1.262 + 0.3385 * l + 0.05417 * l * l) * x * x;
}

// The mass dying at age t, by bisection in log m on [0.01, 100].
inline double ref_dying_mass(double t_yr, double z) {
  double lo = -2.0, hi = 2.0;
  const double lt = std::log10(t_yr);
  if (ref_log_lifetime(100.0, z) > lt) return 100.0;
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (lo + hi);
    (ref_log_lifetime(std::pow(10.0, mid), z) > lt ? lo : hi) = mid;
  }
  return std::pow(10.0, 0.5 * (lo + hi));
}

// Unnormalised IMF shape and its normalisation by trapezoid (in ln m, where it is smooth).
inline double ref_imf_shape(ImfKind imf, double m) {
  if (imf == ImfKind::Salpeter) return std::pow(m, -2.35);
  return m < 0.5 ? std::pow(m, -1.3) : 0.5 * std::pow(m, -2.3);
}
inline double ref_imf(ImfKind imf, double m) {
  static double norm[2] = {0.0, 0.0};
  double& k = norm[int(imf)];
  if (k == 0.0) {
    auto mass = [&](double lm) {
      const double mm = std::exp(lm);
      return mm * mm * ref_imf_shape(imf, mm);
    };
    // Kroupa's break at 0.5 Msun: integrate the two pieces separately.
    k = 1.0 / (trapezoid(mass, std::log(0.1), std::log(0.5), 200000) +
               trapezoid(mass, std::log(0.5), std::log(100.0), 200000));
  }
  return (m < 0.1 || m > 100.0) ? 0.0 : k * ref_imf_shape(imf, m);
}

// SN Ia binaries exploded by age t: A int dm_B phi(m_B) int dm_2 f(m_2/m_B)/m_B over
// m_2 in [max(m_d, m_B - 8), m_B/2], m_B in [3, 16], f(mu) = 24 mu^2.
inline double ref_snia_binary(const SspModel& s, double t_yr, double z) {
  const double m_d = ref_dying_mass(t_yr, z);
  auto outer = [&](double mb) {
    const double lo = std::fmax(m_d, mb - 8.0), hi = 0.5 * mb;
    if (!(hi > lo)) return 0.0;
    auto inner = [&](double m2) {
      const double mu = m2 / mb;
      return 24.0 * mu * mu / mb;
    };
    return ref_imf(s.imf, mb) * trapezoid(inner, lo, hi, 400);
  };
  return s.snia_binary_fraction * trapezoid(outer, 3.0, 16.0, 4000);
}

struct RefRelease {
  double n_snii, n_snia, m_ret, m_agb, m_o, m_fe;
};

inline RefRelease ref_release(const SspModel& s, double t_yr, double z) {
  const double zc = std::fmin(std::fmax(z, 7e-5), 0.03);
  const double m_d = ref_dying_mass(t_yr, zc);
  const int n = 200000;
  const double a2 = std::fmax(8.0, m_d), a1 = std::fmax(1.0, m_d);
  RefRelease r{};
  auto phi = [&](double m) { return ref_imf(s.imf, m); };
  if (a2 < 40.0) {
    r.n_snii = trapezoid(phi, a2, 40.0, n);
    r.m_ret =
        trapezoid([&](double m) { return phi(m) * 0.7682 * std::pow(m, 1.056); }, a2, 40.0, n);
    r.m_o = trapezoid([&](double m) { return phi(m) * snii_oxygen(s.yields, s.ww95, m, zc); }, a2,
                      40.0, n);
    r.m_fe = trapezoid([&](double m) { return phi(m) * snii_iron(s.yields, s.ww95, m, zc); }, a2,
                       40.0, n);
  }
  if (a1 < 8.0)
    r.m_agb = trapezoid([&](double m) { return phi(m) * (0.891 * m - 0.394); }, a1, 8.0, n);
  if (s.snia == SnIaKind::Binary) {
    r.n_snia = ref_snia_binary(s, t_yr, zc);
  } else if (t_yr > s.snia_dtd_t_min_yr) {
    // int_{t_min}^{t} dt / t, normalised over [t_min, t_max], by trapezoid in t.
    auto inv = [](double t) { return 1.0 / t; };
    const double t = std::fmin(t_yr, s.snia_dtd_t_max_yr);
    r.n_snia = s.snia_dtd_number * trapezoid(inv, s.snia_dtd_t_min_yr, t, 2000000) /
               trapezoid(inv, s.snia_dtd_t_min_yr, s.snia_dtd_t_max_yr, 2000000);
  }
  r.m_ret += r.m_agb + 1.4 * r.n_snia;
  r.m_o += 0.13 * r.n_snia;
  r.m_fe += 0.63 * r.n_snia;
  return r;
}

}  // namespace mpsph::test
