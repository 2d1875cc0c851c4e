// The SSP table as the kernels read it. Every quantity of ssp_mass_release() is a function of the
// dying mass m_d and of Z (through the WW95 yields only); the table holds them on a grid in
// (log10 m_d, log10 Z) whose nodes include every mass where an integrand starts or stops (0.1, 1,
// 1.5, 8, 40, 100 Msun: PN/AGB, the SN Ia binaries' kinks, SN II) and every metallicity where the
// WW95 interpolation bends, so that bilinear interpolation only meets smooth functions. A kernel
// turns the age into m_d with the closed-form RVN96 inverse (ssp_lifetime_kern.hpp), interpolates,
// and adds the SN Ia (ssp_add_snia) exactly: it never integrates over the IMF. Interpolation error:
// docs/feedback.md and tests/feedback/ssp_table_test.cpp.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/annotation.hpp"
#include "feedback/ssp_lifetime_kern.hpp"
#include "feedback/ssp_model.hpp"
#include "feedback/ssp_release_kern.hpp"

namespace mpsph {

constexpr int kSspMassSegments = 5;
constexpr int kSspMaxMetallicities = 8;

struct SspTableView {
  const double* values = nullptr;  // [(iz * n_mass + im) * kSspQuantities + q]
  int n_mass = 0, n_z = 0;
  // Mass axis: segment s spans log10 m in [seg_logm[s], seg_logm[s + 1]] with seg_cells[s] equal
  // cells; its first node is seg_node[s].
  double seg_logm[kSspMassSegments + 1];
  int seg_cells[kSspMassSegments];
  int seg_node[kSspMassSegments];
  double logz[kSspMaxMetallicities];  // ascending; n_z = 1: no metallicity dependence
  SspModel model;                     // for the SN Ia of ssp_add_snia (model.ww95 not used)
};

// Node index and weight of log10 m on the mass axis (clamped to its ends).
MPSPH_HD void ssp_mass_cell(const SspTableView& t, double logm, int& node, double& f) {
  if (logm <= t.seg_logm[0]) {
    node = 0, f = 0.0;
    return;
  }
  for (int s = 0; s < kSspMassSegments; ++s) {
    if (logm < t.seg_logm[s + 1] || s == kSspMassSegments - 1) {
      const double x =
          (logm - t.seg_logm[s]) / (t.seg_logm[s + 1] - t.seg_logm[s]) * t.seg_cells[s];
      int k = int(x);
      if (k >= t.seg_cells[s]) k = t.seg_cells[s] - 1;
      f = x - k;
      if (f > 1.0) f = 1.0;
      node = t.seg_node[s] + k;
      return;
    }
  }
}

// The mass-side release (ssp_mass_release) at dying mass m_d and metallicity z, interpolated.
MPSPH_HD SspRelease ssp_table_mass_release(const SspTableView& t, double m_d, double z) {
  int im = 0, iz = 0;
  double fm = 0.0, fz = 0.0;
  ssp_mass_cell(t, std::log10(m_d), im, fm);
  if (t.n_z > 1) {
    const double lz = std::log10(clip_ssp_metallicity(z));
    while (iz < t.n_z - 2 && lz > t.logz[iz + 1]) ++iz;
    fz = (lz - t.logz[iz]) / (t.logz[iz + 1] - t.logz[iz]);
    fz = fz < 0.0 ? 0.0 : (fz > 1.0 ? 1.0 : fz);
  }
  const double* v0 = t.values + (std::size_t(iz) * t.n_mass + im) * kSspQuantities;
  const double* v1 = t.n_z > 1 ? v0 + std::size_t(t.n_mass) * kSspQuantities : v0;
  SspRelease r;
  for (int q = 0; q < kSspQuantities; ++q) {
    const double a = (1.0 - fm) * v0[q] + fm * v0[q + kSspQuantities];
    const double b = (1.0 - fm) * v1[q] + fm * v1[q + kSspQuantities];
    r.q[q] = (1.0 - fz) * a + fz * b;
  }
  return r;
}

// Cumulative release per Msun formed at age t_yr for metallicity z (ssp_cumulative, from the
// table).
MPSPH_HD SspRelease ssp_table_cumulative(const SspTableView& t, double t_yr, double z) {
  const double zc = clip_ssp_metallicity(z);
  if (!(t_yr > 0.0)) return SspRelease{};
  return ssp_add_snia(t.model, ssp_table_mass_release(t, dying_mass(t_yr, zc), zc), t_yr);
}

}  // namespace mpsph
