// The SSP table (ssp_table.hpp) against the direct integrals it interpolates: the error bound
// stated in docs/feedback.md.
#include "feedback/ssp_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "catch.hpp"
#include "core/error.hpp"

using namespace mpsph;

namespace {

// Largest |table - direct| over ages 1 Myr - 15 Gyr and Z over the clipped range, for each
// quantity, relative to its value at 15 Gyr (the total). Measured: at most 2.6e-5 (WW95 Fe, whose
// piecewise-linear yields bend between mass nodes), 1e-5 for the rest.
void check_table(const SspModel& s, double tol) {
  const SspTable table(s);
  const SspTableView& v = table.view();
  const SspRelease total = ssp_cumulative(table.model(), 1.5e10, 0.02);
  double worst[kSspQuantities] = {};
  for (int i = 0; i < 3000; ++i) {
    // Points between the grid nodes (irrational steps), where interpolation errs most.
    const double lt = 6.0 + std::fmod(i * 0.61803398875, 1.0) * 4.17;
    const double lz = std::log10(7e-5) + std::fmod(i * 0.41421356237, 1.0) * 2.63;
    const double t = std::pow(10.0, lt), z = std::pow(10.0, lz);
    const SspRelease a = ssp_table_cumulative(v, t, z), b = ssp_cumulative(table.model(), t, z);
    for (int q = 0; q < kSspQuantities; ++q)
      if (total.q[q] > 0.0) worst[q] = std::max(worst[q], std::fabs(a.q[q] - b.q[q]) / total.q[q]);
  }
  for (int q = 0; q < kSspQuantities; ++q) {
    std::printf("SSP table: quantity %d max |table - direct| / total = %.3g\n", q, worst[q]);
    CHECK(worst[q] < tol);
  }
  // Exactly on a node of the mass axis the table is the direct value.
  const double m =
      std::pow(10.0, v.seg_logm[2] + 37.0 / v.seg_cells[2] * (v.seg_logm[3] - v.seg_logm[2]));
  const SspRelease a = ssp_table_mass_release(v, m, 0.01),
                   b = ssp_mass_release(table.model(), m, 0.01);
  for (int q = 0; q < kSspQuantities; ++q)
    CHECK(a.q[q] == Approx(b.q[q]).epsilon(1e-9).margin(1e-15));
}

}  // namespace

TEST_CASE("SSP table interpolation error, Salpeter RVN96 binary SN Ia", "[feedback][ssp]") {
  check_table(SspModel{}, 1e-4);
}

TEST_CASE("SSP table interpolation error, Kroupa WW95 t^-1 SN Ia", "[feedback][ssp]") {
  const Ww95View w = load_ww95_tables(find_ww95_dir(""));
  SspModel s;
  s.imf = ImfKind::Kroupa;
  s.yields = YieldKind::Ww95;
  s.snia = SnIaKind::Dtd;
  s.ww95 = &w;
  check_table(s, 1e-4);
}

TEST_CASE("WW95 tables: loaded sums and refused files", "[feedback][ssp]") {
  const Ww95View w = load_ww95_tables(find_ww95_dir(""));
  REQUIRE(w.n_mass == 14);
  REQUIRE(w.n_z == 4);
  // FeH0, 15.081 Msun: o16 + o17 + o18 = 0.6797 + 5.923e-4 + 4.591e-3; Fe 7.591e-3 + 0.1298 +
  // 4.761e-3 + 3.112e-4.
  CHECK(w.mass[5] == 15.081);
  CHECK(w.o[3 * 14 + 5] == Approx(0.6797 + 5.923e-4 + 4.591e-3).epsilon(1e-14));
  CHECK(w.fe[3 * 14 + 5] == Approx(7.591e-3 + 0.1298 + 4.761e-3 + 3.112e-4).epsilon(1e-14));
  CHECK_THROWS_AS(load_ww95_tables("/nonexistent"), Error);
  CHECK_THROWS_AS(find_ww95_dir("/nonexistent"), Error);
}
