// What one dying star or one SN Ia returns (PHYSICS.md section 7), in Msun:
//   SN II, 8-40 Msun (1 SN each): ejecta M_ej = 0.7682 m^1.056 (RVN96 fit, both yield options);
//     oxygen and iron from the RVN96 fits M_O = 4.586e-4 m^2.721, M_Fe = 2.802e-4 m^1.864
//     (default) or from the Woosley & Weaver (1995, ApJS 101, 181) tables (data/yields/WW95: they
//     give O and Fe only, so the ejected mass stays the fit's).
//   Stars above 40 Msun end without ejecta in this model (collapse to black holes).
//   PN/AGB, 1-8 Msun: ejecta m - (0.109 m + 0.394) (white-dwarf remnant), which carry the star's
//     birth composition (no new metals).
//   SN Ia: 1.4 Msun of ejecta with 0.63 Msun Fe and 0.13 Msun O.
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

enum class YieldKind : int { Rvn96 = 0, Ww95 = 1 };

constexpr double kSnIIMassMin = 8.0;   // Msun
constexpr double kSnIIMassMax = 40.0;  // Msun
constexpr double kAgbMassMin = 1.0;    // Msun
constexpr double kSnIaEjecta = 1.4;    // Msun
constexpr double kSnIaFe = 0.63;       // Msun
constexpr double kSnIaO = 0.13;        // Msun

// The WW95 tables as the SSP integrals read them (on the host, to build the SSP table; kernels
// read only that table): for each metallicity iz (log10(Z/Zsun) = logz[iz],
// ascending) the O and Fe ejecta [Msun] at the progenitor masses mass[k] (ascending, shared by all
// metallicities), flat [iz * n_mass + k]. Zsun = kWw95SolarZ.
constexpr int kWw95MaxMasses = 16;
constexpr int kWw95MaxMetallicities = 5;
constexpr double kWw95SolarZ = 0.02;

struct Ww95View {
  int n_mass = 0, n_z = 0;
  double mass[kWw95MaxMasses];
  double logz[kWw95MaxMetallicities];
  double o[kWw95MaxMetallicities * kWw95MaxMasses];
  double fe[kWw95MaxMetallicities * kWw95MaxMasses];
};

MPSPH_HD double snii_ejecta(double m) {
  return 0.7682 * std::pow(m, 1.056);
}

MPSPH_HD double agb_ejecta(double m) {
  return m - (0.109 * m + 0.394);
}

// Linear interpolation of row iz of `table` at mass m (clamped to the table's masses).
MPSPH_HD double ww95_row(const Ww95View& w, const double* table, int iz, double m) {
  const double* y = table + iz * w.n_mass;
  if (m <= w.mass[0]) return y[0];
  if (m >= w.mass[w.n_mass - 1]) return y[w.n_mass - 1];
  int k = 0;
  while (m > w.mass[k + 1]) ++k;
  const double f = (m - w.mass[k]) / (w.mass[k + 1] - w.mass[k]);
  return y[k] + f * (y[k + 1] - y[k]);
}

// WW95 ejecta of `table` (w.o or w.fe) for mass m and metallicity z: linear in m, then linear in
// log10(Z/Zsun) between the tables (clamped to the lowest and highest).
MPSPH_HD double ww95_yield(const Ww95View& w, const double* table, double m, double z) {
  const double lz = std::log10(z / kWw95SolarZ);
  if (lz <= w.logz[0]) return ww95_row(w, table, 0, m);
  if (lz >= w.logz[w.n_z - 1]) return ww95_row(w, table, w.n_z - 1, m);
  int iz = 0;
  while (lz > w.logz[iz + 1]) ++iz;
  const double f = (lz - w.logz[iz]) / (w.logz[iz + 1] - w.logz[iz]);
  return (1.0 - f) * ww95_row(w, table, iz, m) + f * ww95_row(w, table, iz + 1, m);
}

// Oxygen and iron ejected by one SN II of mass m [Msun] and metallicity z (ww95: null for RVN96).
MPSPH_HD double snii_oxygen(YieldKind y, const Ww95View* ww95, double m, double z) {
  return y == YieldKind::Ww95 ? ww95_yield(*ww95, ww95->o, m, z) : 4.586e-4 * std::pow(m, 2.721);
}
MPSPH_HD double snii_iron(YieldKind y, const Ww95View* ww95, double m, double z) {
  return y == YieldKind::Ww95 ? ww95_yield(*ww95, ww95->fe, m, z) : 2.802e-4 * std::pow(m, 1.864);
}

}  // namespace mpsph
