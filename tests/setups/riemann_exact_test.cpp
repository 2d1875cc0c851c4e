// The exact Riemann solvers: the ideal-gas one against Toro's published star states (Toro 2009,
// table 4.2), the isothermal one against its jump conditions and the gamma -> 1 limit.
#include "setups/riemann_exact.hpp"

#include <cmath>

#include "catch.hpp"
#include "setups/riemann_isothermal.hpp"

using mpsph::test::ExactRiemann;

TEST_CASE("exact Riemann solver reproduces Toro's star states", "[setups][riemann]") {
  // Tolerance: half a unit in the last published digit.
  // Toro test 1 (Sod): p* = 0.30313, u* = 0.92745 (gamma 1.4).
  ExactRiemann sod({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, 1.4);
  CHECK(sod.p_star() == Approx(0.30313).margin(5e-6));
  CHECK(sod.u_star() == Approx(0.92745).margin(5e-6));
  // Toro test 3 (strong left blast): p* = 460.894, u* = 19.5975.
  ExactRiemann blast({1.0, 0.0, 1000.0}, {1.0, 0.0, 0.01}, 1.4);
  CHECK(blast.p_star() == Approx(460.894).margin(5e-4));
  CHECK(blast.u_star() == Approx(19.5975).margin(5e-5));
  // Toro test 2 (123 problem, two rarefactions): p* = 0.00189, u* = 0.
  ExactRiemann r123({1.0, -2.0, 0.4}, {1.0, 2.0, 0.4}, 1.4);
  CHECK(r123.p_star() == Approx(0.00189).margin(5e-6));
  CHECK(std::fabs(r123.u_star()) < 1e-12);
}

TEST_CASE("exact Riemann solution is continuous in p and u across the contact",
          "[setups][riemann]") {
  ExactRiemann sod({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, 5.0 / 3.0);
  const double s = sod.u_star();
  const auto a = sod.sample(s - 1e-9), b = sod.sample(s + 1e-9);
  CHECK(a.p == Approx(b.p).epsilon(1e-12));
  CHECK(a.u == Approx(b.u).epsilon(1e-12));
  CHECK(a.rho > b.rho);  // density jumps at the contact
  // Far from the waves the initial states are untouched.
  CHECK(sod.sample(-10).rho == 1.0);
  CHECK(sod.sample(10).rho == 0.125);
}

// The isothermal solver (riemann_isothermal.hpp): the jump conditions it is built on, checked on
// its own output, and the gamma -> 1 limit of the ideal-gas solver as an independent reference.
TEST_CASE("isothermal Riemann solver: Rankine-Hugoniot, Riemann invariant, gamma -> 1 limit",
          "[setups][riemann]") {
  using mpsph::test::ExactIsothermalRiemann;
  using mpsph::test::IsoState;
  const double c = 1.0;
  const ExactIsothermalRiemann sod({1.0, 0.0}, {0.125, 0.0}, c);
  // Sod-like states: a left rarefaction and a right shock.
  REQUIRE(sod.rho_star() < 1.0);
  REQUIRE(sod.rho_star() > 0.125);
  // Right shock, in the shock frame: mass flux rho (u - S) and momentum flux rho (u - S)^2 + c^2
  // rho are the same on both sides (to the bisection's 2^-200 bracket: double round-off).
  const double S = sod.right_shock_speed();
  const double m0 = 0.125 * (0.0 - S), m1 = sod.rho_star() * (sod.u_star() - S);
  CHECK(m1 == Approx(m0).epsilon(1e-13));
  CHECK(0.125 * S * S + c * c * 0.125 ==
        Approx(sod.rho_star() * (sod.u_star() - S) * (sod.u_star() - S) + c * c * sod.rho_star())
            .epsilon(1e-13));
  // Left rarefaction: u + c ln rho is constant through the fan.
  for (double s : {-0.9, -0.5, -0.1, 0.0}) {
    const IsoState q = sod.sample(s);
    CHECK(q.u + c * std::log(q.rho) == Approx(0.0 + c * std::log(1.0)).margin(1e-13));
  }
  // gamma -> 1 of the ideal-gas solver with p = c^2 rho: rho* and u* agree to O(gamma - 1).
  const ExactRiemann ideal({1.0, 0.0, 1.0}, {0.125, 0.0, 0.125}, 1.0 + 1e-6);
  CHECK(sod.rho_star() == Approx(ideal.p_star()).epsilon(1e-5));
  CHECK(sod.u_star() == Approx(ideal.u_star()).epsilon(1e-5));
  // Two shocks (colliding flows) and two rarefactions, against the same limit.
  for (double du : {2.0, -1.0}) {
    const ExactIsothermalRiemann iso({1.0, du}, {0.5, -du}, c);
    const ExactRiemann id({1.0, du, 1.0}, {0.5, -du, 0.5}, 1.0 + 1e-6);
    INFO("u_L = " << du);
    CHECK(iso.rho_star() == Approx(id.p_star()).epsilon(1e-5));
    CHECK(iso.u_star() == Approx(id.u_star()).margin(1e-5));
  }
  // Far from the waves the initial states are untouched.
  CHECK(sod.sample(-10).rho == 1.0);
  CHECK(sod.sample(10).rho == 0.125);
}
