#include "feedback/ssp_csv.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace mpsph {

std::vector<double> default_ssp_ages_myr() {
  std::vector<double> a;
  for (int k = 0; k <= 83; ++k) a.push_back(std::pow(10.0, 0.05 * k));
  return a;
}

namespace {

std::string line(const char* fmt, double a, double b, double c, double d, double e, double f,
                 double g) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d, e, f, g);
  return buf;
}

}  // namespace

std::string ssp_csv(const SspTable& table, double z, const std::vector<double>& ages_myr) {
  const SspModel& m = table.model();
  const char* imf = m.imf == ImfKind::Salpeter ? "salpeter" : "kroupa";
  const char* yields = m.yields == YieldKind::Rvn96 ? "rvn96" : "ww95";
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "# mpsph ssp: cumulative release of a simple stellar population per Msun formed\n"
                "# imf %s (0.1-100 Msun), yields %s, snia %s, metallicity Z = %.6g (lifetimes and "
                "yields use Z clipped to [7e-5, 0.03]), %.4g erg per SN\n",
                imf, yields, m.snia == SnIaKind::Binary ? "binary" : "dtd", z, m.e_sn_erg);
  out += buf;
  out +=
      "# units: age_Myr [Myr]; N_SNII, N_SNIa [1/Msun]; E_SN_erg [erg/Msun]; M_returned, M_O, M_Fe "
      "[Msun/Msun]\n"
      "# M_returned: all ejecta (SN II, PN/AGB, SN Ia); M_O, M_Fe: newly made by SN II and SN Ia "
      "(in a run the PN/AGB ejecta also return the star's birth O and Fe)\n"
      "age_Myr,N_SNII,N_SNIa,E_SN_erg,M_returned,M_O,M_Fe\n";
  for (double a : ages_myr) {
    if (!(a > 0.0) || !std::isfinite(a)) throw Error("mpsph ssp: ages must be positive (Myr)");
    const SspRelease r = ssp_table_cumulative(table.view(), a * 1e6, z);
    out += line("%.6g,%.8e,%.8e,%.8e,%.8e,%.8e,%.8e\n", a, r.q[kSspNSnII], r.q[kSspNSnIa],
                m.e_sn_erg * (r.q[kSspNSnII] + r.q[kSspNSnIa]), r.q[kSspMassReturned],
                r.q[kSspOxygen], r.q[kSspIron]);
  }
  return out;
}

}  // namespace mpsph
