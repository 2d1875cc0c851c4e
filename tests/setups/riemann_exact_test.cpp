// The exact Riemann solver against Toro's published star states (Toro 2009, table 4.2).
#include "setups/riemann_exact.hpp"

#include "catch.hpp"

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
