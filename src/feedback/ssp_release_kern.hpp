// The cumulative release of a simple stellar population per Msun formed, from its birth to age t
// (PHYSICS.md section 7), by direct integration over the IMF: the stars heavier than the mass
// m_d(t, Z) dying at t have died (ssp_lifetime_kern.hpp), and
//   N_SNII   = int_{max(8, m_d)}^{40} phi dm                          SN II
//   N_SNIa   = ssp_snia_kern.hpp                                      SN Ia
//   M_agb    = int_{max(1, m_d)}^{8} (m - 0.109 m - 0.394) phi dm       PN/AGB ejecta [Msun]
//   M_ret    = int_{max(8, m_d)}^{40} M_ej phi dm + M_agb + 1.4 N_SNIa   all ejecta [Msun]
//   M_O      = int_{max(8, m_d)}^{40} M_O,II phi dm + 0.13 N_SNIa      new oxygen [Msun]
//   M_Fe     = int_{max(8, m_d)}^{40} M_Fe,II phi dm + 0.63 N_SNIa     new iron [Msun]
// (phi = imf_number_density). The PN/AGB ejecta bring no new metals: a star particle returns them
// with its own birth O and Fe fractions. The energy is E_SN = e_sn_erg (N_SNII + N_SNIa).
//
// Everything but the t^-1 SN Ia is a function of the dying mass m_d (and of Z through the WW95
// yields): ssp_mass_release(). The SN Ia of the delay-time option depend on the age itself:
// ssp_add_snia(). The SSP table (ssp_table_kern.hpp) holds the first on a grid in (log m_d, log Z)
// whose nodes include every mass where an integrand starts or stops, and applies the second
// exactly; kernels read the table, these integrals are for building it and for tests.
#pragma once

#include "core/annotation.hpp"
#include "feedback/ssp_imf_kern.hpp"
#include "feedback/ssp_integrate_kern.hpp"
#include "feedback/ssp_lifetime_kern.hpp"
#include "feedback/ssp_model.hpp"
#include "feedback/ssp_snia_kern.hpp"
#include "feedback/ssp_yields_kern.hpp"

namespace mpsph {

// Cumulative quantities per Msun formed (numbers per Msun, masses in Msun per Msun).
enum SspQuantity : int {
  kSspNSnII = 0,
  kSspNSnIa = 1,
  kSspMassReturned = 2,
  kSspMassAgb = 3,
  kSspOxygen = 4,
  kSspIron = 5,
  kSspQuantities = 6
};

struct SspRelease {
  double q[kSspQuantities];
};

// What the IMF-weighted integrands of one mass range compute: 0 number, 1 SN II ejecta, 2 SN II
// oxygen, 3 SN II iron, 4 PN/AGB ejecta.
struct SspIntegrand {
  const SspModel* s;
  double z;
  int what;
  MPSPH_HD double operator()(double m) const {
    const double phi = imf_number_density(s->imf, m);
    switch (what) {
      case 0:
        return phi;
      case 1:
        return phi * snii_ejecta(m);
      case 2:
        return phi * snii_oxygen(s->yields, s->ww95, m, z);
      case 3:
        return phi * snii_iron(s->yields, s->ww95, m, z);
      default:
        return phi * agb_ejecta(m);
    }
  }
};

// int_a^b of integrand `what`, split at the WW95 masses when the yields are tabulated (the
// integrand is then only piecewise smooth).
MPSPH_HD double ssp_integral(const SspModel& s, double z, int what, double a, double b) {
  const SspIntegrand f{&s, z, what};
  if (!(b > a)) return 0.0;
  if (s.yields != YieldKind::Ww95 || what < 2 || what > 3) return integrate_log_mass(f, a, b);
  double lo = a, sum = 0.0;
  for (int k = 0; k < s.ww95->n_mass && lo < b; ++k) {
    const double cut = s.ww95->mass[k];
    if (cut <= lo) continue;
    const double hi = cut < b ? cut : b;
    sum += integrate_log_mass(f, lo, hi);
    lo = hi;
  }
  if (b > lo) sum += integrate_log_mass(f, lo, b);
  return sum;
}

// What the stars heavier than m_d [Msun] have released, per Msun formed, for metallicity z
// (clipped to the RVN96 range): SN II, PN/AGB and, for the binary model, SN Ia numbers; the SN Ia
// ejecta are not included yet (ssp_add_snia).
MPSPH_HD SspRelease ssp_mass_release(const SspModel& s, double m_d, double z) {
  const double zc = clip_ssp_metallicity(z);
  SspRelease r{};
  const double lo2 = m_d > kSnIIMassMin ? m_d : kSnIIMassMin;
  if (lo2 < kSnIIMassMax) {
    r.q[kSspNSnII] = ssp_integral(s, zc, 0, lo2, kSnIIMassMax);
    r.q[kSspMassReturned] = ssp_integral(s, zc, 1, lo2, kSnIIMassMax);
    r.q[kSspOxygen] = ssp_integral(s, zc, 2, lo2, kSnIIMassMax);
    r.q[kSspIron] = ssp_integral(s, zc, 3, lo2, kSnIIMassMax);
  }
  const double lo1 = m_d > kAgbMassMin ? m_d : kAgbMassMin;
  if (lo1 < kSnIIMassMin) r.q[kSspMassAgb] = ssp_integral(s, zc, 4, lo1, kSnIIMassMin);
  r.q[kSspMassReturned] += r.q[kSspMassAgb];
  if (s.snia == SnIaKind::Binary) r.q[kSspNSnIa] = snia_binary_cumulative(s, m_d);
  return r;
}

// Completes a release of ssp_mass_release at age t_yr: the t^-1 SN Ia number (delay-time model),
// then the SN Ia ejecta, O and Fe.
MPSPH_HD SspRelease ssp_add_snia(const SspModel& s, SspRelease r, double t_yr) {
  if (s.snia == SnIaKind::Dtd) r.q[kSspNSnIa] = snia_dtd_cumulative(s, t_yr);
  const double n_ia = r.q[kSspNSnIa];
  r.q[kSspMassReturned] += kSnIaEjecta * n_ia;
  r.q[kSspOxygen] += kSnIaO * n_ia;
  r.q[kSspIron] += kSnIaFe * n_ia;
  return r;
}

// Everything released from birth to age t_yr by a population of metallicity z per Msun formed.
MPSPH_HD SspRelease ssp_cumulative(const SspModel& s, double t_yr, double z) {
  const double zc = clip_ssp_metallicity(z);
  return ssp_add_snia(s, ssp_mass_release(s, dying_mass(t_yr, zc), zc), t_yr);
}

}  // namespace mpsph
