// Equations of state (src/sph/eos_kern.hpp, docs/eos.md): analytic values, c^2 = dP/drho for the
// barotropic laws, continuity of the piecewise law at its breaks, and u set from the EOS.
#include <cmath>

#include "catch.hpp"
#include "core/particle_store.hpp"
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

namespace {
// The piecewise law with c_s = 0.2 and breaks at 1, 10, 1e3 (code density).
EosParams piecewise_eos() {
  EosParams e;
  e.kind = EosKind::Piecewise;
  e.sound_speed = 0.2;
  e.rho_1 = 1.0;
  e.rho_2 = 10.0;
  e.rho_3 = 1e3;
  return e;
}
double piecewise_p(const EosParams& e, double rho) {
  return barotrope(e, rho).p_over_rho * rho;
}
}  // namespace

TEST_CASE("piecewise EOS (BBB03): P = K rho^eta with eta = 1, 7/5, 1.1, 5/3, continuous",
          "[sph][eos]") {
  const EosParams e = piecewise_eos();
  const double cs2 = 0.04;
  // Continuity at each break: the two sides 1e-12 apart differ by eta * 1e-12 from the slope and
  // by a few double roundings (pow, products: ~1e-15), so 1e-11 relative.
  for (double rb : {e.rho_1, e.rho_2, e.rho_3}) {
    const double below = piecewise_p(e, rb * (1 - 1e-12)), above = piecewise_p(e, rb * (1 + 1e-12));
    INFO("break at rho = " << rb);
    CHECK(std::fabs(above - below) / below < 1e-11);
  }
  // Each piece is a polytrope of its index: d ln P / d ln rho = eta over a factor 2 inside it
  // (double rounding of logs of O(1) ratios: 1e-12).
  const double mid[4] = {0.3, 3.0, 100.0, 1e5}, eta[4] = {1.0, 1.4, 1.1, 5.0 / 3.0};
  for (int k = 0; k < 4; ++k) {
    const double slope =
        std::log(piecewise_p(e, 1.4 * mid[k]) / piecewise_p(e, 0.7 * mid[k])) / std::log(2.0);
    INFO("piece " << k);
    CHECK(slope == Approx(eta[k]).margin(1e-12));
    // c^2 = dP/drho = eta P/rho.
    const Barotrope b = barotrope(e, mid[k]);
    CHECK(b.c2 == Approx(eta[k] * b.p_over_rho).epsilon(1e-15));
  }
  // Pressure from the paper's K_k: K_1 = c_s^2, K_2 = c_s^2 rho_1^(-2/5),
  // K_3 = K_2 rho_2^(7/5 - 1.1), K_4 = K_3 rho_3^(1.1 - 5/3).
  const double k2 = cs2 * std::pow(e.rho_1, -0.4), k3 = k2 * std::pow(e.rho_2, 0.3),
               k4 = k3 * std::pow(e.rho_3, 1.1 - 5.0 / 3.0);
  CHECK(piecewise_p(e, 0.5) == Approx(cs2 * 0.5).epsilon(1e-14));
  CHECK(piecewise_p(e, 5.0) == Approx(k2 * std::pow(5.0, 1.4)).epsilon(1e-14));
  CHECK(piecewise_p(e, 500.0) == Approx(k3 * std::pow(500.0, 1.1)).epsilon(1e-14));
  CHECK(piecewise_p(e, 1e6) == Approx(k4 * std::pow(1e6, 5.0 / 3.0)).epsilon(1e-13));
  // Stored state (float): P and c = sqrt(eta P/rho).
  const EosState s = eos_state(e, 5.0, 0.0);
  CHECK(s.pressure == Approx(k2 * std::pow(5.0, 1.4)).epsilon(1e-6));
  CHECK(s.csound == Approx(std::sqrt(1.4 * k2 * std::pow(5.0, 0.4))).epsilon(1e-6));
}

TEST_CASE("piecewise EOS limits: isothermal below rho_1, pure two-piece BBB03 for far breaks",
          "[sph][eos]") {
  EosParams e = piecewise_eos();
  EosParams iso;
  iso.kind = EosKind::Isothermal;
  iso.sound_speed = e.sound_speed;
  for (double rho : {1e-20, 1e-3, 1.0}) {
    CHECK(eos_state(e, rho, 7.0).pressure == eos_state(iso, rho, 7.0).pressure);
    CHECK(eos_state(e, rho, 7.0).csound == eos_state(iso, rho, 7.0).csound);
  }
  // BBB03 as published: eta = 1 up to rho_1, 7/5 above. With rho_2, rho_3 out of reach the law
  // is P = c_s^2 rho_1 (rho/rho_1)^(7/5) at any density above rho_1.
  e.rho_2 = 1e200;
  e.rho_3 = 1e300;
  for (double rho : {2.0, 1e10, 1e50})
    CHECK(piecewise_p(e, rho) == Approx(0.04 * std::pow(rho, 1.4)).epsilon(1e-12));
}

TEST_CASE("non-adiabatic EOS sets u = P/((gamma-1) rho), and adiabatic leaves u alone", "[sph][eos]") {
  ParticleStore s;
  s.resize(1);
  s.type[0] = kGas;
  s.rho[0] = 5.0f;
  s.u[0] = 123.0;
  EosParams e = piecewise_eos();
  e.gamma = 5.0 / 3.0;
  const EosState st = apply_eos(e, s.view(), 0);
  const double u_expected = barotrope(e, 5.0).p_over_rho / (2.0 / 3.0);
  CHECK(s.u[0] == Approx(u_expected).epsilon(1e-14));
  CHECK(s.pressure[0] == st.pressure);
  CHECK(s.csound[0] == st.csound);
  // Consistency: the stored pressure is (gamma - 1) rho u of the ideal gas at that u.
  CHECK(double(s.pressure[0]) == Approx((e.gamma - 1.0) * 5.0 * s.u[0]).epsilon(1e-6));
  // Isothermal: u = c_s^2/(gamma - 1) at any density, T = mu m_H c_s^2 / k_B.
  EosParams iso;
  iso.kind = EosKind::Isothermal;
  iso.sound_speed = 0.3;
  iso.gamma = 1.4;
  CHECK(eos_specific_energy(iso, 1e-5) == Approx(0.09 / 0.4).epsilon(1e-15));
  CHECK(eos_specific_energy(iso, 1e5) == Approx(0.09 / 0.4).epsilon(1e-15));
  // Adiabatic: u is the evolved variable and stays as it is.
  EosParams ad;
  s.u[0] = 3.0;
  apply_eos(ad, s.view(), 0);
  CHECK(s.u[0] == 3.0);
  CHECK(s.pressure[0] == Approx((5.0 / 3.0 - 1.0) * 5.0 * 3.0).epsilon(1e-6));
  CHECK_FALSE(eos_evolves_u(e));
  CHECK(eos_evolves_u(ad));
}
