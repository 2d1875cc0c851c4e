// Equations of state: analytic values, and c^2 = dP/drho for the barotropic law.
#include <cmath>

#include "catch.hpp"
#include "sph/eos_kern.hpp"

using namespace mpsph;

// Results are stored in float: relative tolerance 1e-6 (float epsilon 6e-8 plus a few operations).
TEST_CASE("adiabatic EOS: P = (gamma-1) rho u, c = sqrt(gamma P/rho)", "[sph][eos]") {
  EosParams e;
  e.kind = EosKind::Adiabatic;
  e.gamma = 5.0 / 3.0;
  const EosState s = eos_state(e, 2.0, 3.0);
  CHECK(s.pressure == Approx(4.0).epsilon(1e-6));                  // 2/3 * 2 * 3
  CHECK(s.csound == Approx(std::sqrt(10.0 / 3.0)).epsilon(1e-6));  // sqrt(5/3 * 4 / 2)
  e.gamma = 1.4;
  CHECK(eos_state(e, 0.5, 2.5).pressure == Approx(0.5).epsilon(1e-6));  // 0.4 * 0.5 * 2.5
}

TEST_CASE("isothermal EOS: P = c_s^2 rho, c = c_s", "[sph][eos]") {
  EosParams e;
  e.kind = EosKind::Isothermal;
  e.sound_speed = 0.3;
  const EosState s = eos_state(e, 5.0, 123.0);  // u is ignored
  CHECK(s.pressure == Approx(0.45).epsilon(1e-6));
  CHECK(s.csound == Approx(0.3).epsilon(1e-6));
}

TEST_CASE("barotropic EOS: isothermal below rho_c, gamma = 7/5 above, c^2 = dP/drho",
          "[sph][eos]") {
  EosParams e;
  e.kind = EosKind::Barotropic;
  e.sound_speed = 0.2;
  e.rho_crit = 1e-14;
  const double cs2 = 0.04;
  // At rho_c: P = 2 c_s^2 rho_c, c^2 = c_s^2 (1 + 7/5).
  CHECK(eos_state(e, 1e-14, 0.0).pressure == Approx(2.0 * cs2 * 1e-14).epsilon(1e-6));
  CHECK(eos_state(e, 1e-14, 0.0).csound == Approx(std::sqrt(2.4 * cs2)).epsilon(1e-6));
  // Far below: isothermal, the correction (1e-10)^(2/5) = 1e-4 is exact in the formula.
  CHECK(eos_state(e, 1e-24, 0.0).pressure == Approx(cs2 * 1e-24 * (1 + 1e-4)).epsilon(1e-6));
  // Far above: P -> c_s^2 rho (rho/rho_c)^(2/5), i.e. P ~ rho^(7/5).
  // At 1e10 and 1e11 rho_c the isothermal part changes the slope by ~1e-4.
  const double p1 = eos_state(e, 1e-4, 0.0).pressure, p2 = eos_state(e, 1e-3, 0.0).pressure;
  CHECK(std::log10(p2 / p1) == Approx(1.4).margin(1e-3));
  // c^2 = dP/drho by central differences with step 1e-3 rho: truncation ~1e-7 and float
  // rounding of P ~ 6e-8 / 1e-3 = 6e-5, hence 2e-4.
  for (double rho : {3e-15, 1e-14, 7e-14, 1e-12}) {
    const double d = 1e-3 * rho;
    const double dpdrho = (double(eos_state(e, rho + d, 0.0).pressure) -
                           double(eos_state(e, rho - d, 0.0).pressure)) /
                          (2.0 * d);
    const double c = eos_state(e, rho, 0.0).csound;
    CHECK(c * c == Approx(dpdrho).epsilon(2e-4));
  }
}
