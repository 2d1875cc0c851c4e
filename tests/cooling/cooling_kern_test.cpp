// Per-particle cooling functions: T(u), composition, the implicit step.
#include "cooling/cooling_kern.hpp"

#include <cmath>

#include "catch.hpp"
#include "cooling/cooling.hpp"
#include "core/constants.hpp"

using namespace mpsph;

TEST_CASE("T(u) inverts u(T) for variable and constant mu", "[cooling][kern]") {
  const MuModel var{true, 0.0}, con{false, 2.3};
  const double u_to_T = 0.1;  // any scale: the relation is linear in it
  double u_prev = 0.0;
  for (int i = 0; i <= 400; ++i) {
    const double T = std::pow(10.0, 0.5 + 8.5 * i / 400.0);
    const double u = u_from_temperature(var, u_to_T, T);
    CHECK(temperature_from_u(var, u_to_T, u) == Approx(T).epsilon(1e-13));
    CHECK(u > u_prev);  // u(T) increasing: T(u) unique
    u_prev = u;
    CHECK(temperature_from_u(con, u_to_T, u_from_temperature(con, u_to_T, T)) ==
          Approx(T).epsilon(1e-14));
  }
  // mu(T): the PHYSICS.md values at both ends and continuous at the joins.
  CHECK(mean_molecular_weight(var, 100.0) == 1.22);
  CHECK(mean_molecular_weight(var, 1e6) == 0.59);
  CHECK(mean_molecular_weight(var, 8000.0 * (1 + 1e-12)) == Approx(1.22).epsilon(1e-10));
  CHECK(mean_molecular_weight(var, 1.5e4 * (1 - 1e-12)) == Approx(0.59).epsilon(1e-10));
  CHECK(mean_molecular_weight(var, 11500.0) == Approx(0.5 * (1.22 + 0.59)).epsilon(1e-14));
}

TEST_CASE("[Fe/H] from the iron and hydrogen mass fractions", "[cooling][kern]") {
  // The solar ratio from Anders & Grevesse (1989) number abundances and atomic masses.
  CHECK(kSolarFeToH == Approx(std::pow(10.0, 7.67 - 12.0) * 55.845 / 1.008).epsilon(1e-4));
  CHECK(kSolarOToH == Approx(std::pow(10.0, 8.93 - 12.0) * 15.999 / 1.008).epsilon(1e-4));
  CHECK(feh_from_mass_fractions(0.7, 0.7 * kSolarFeToH) == Approx(0.0).margin(1e-14));
  CHECK(feh_from_mass_fractions(0.75, 0.75 * kSolarFeToH * std::pow(10.0, -1.3)) ==
        Approx(-1.3).epsilon(1e-13));
  CHECK(std::isinf(feh_from_mass_fractions(0.75, 0.0)));
}

TEST_CASE("the implicit step solves its backward-Euler equation", "[cooling][kern]") {
  // cgs code units, so rates can be read directly; floor 20 K; with and without heating.
  const UnitSystem cgs_units = UnitSystem::from_cgs(1.0, 1.0, 1.0);
  for (double heating : {0.0, 2e-26}) {
    CoolingParams cp;
    cp.kind = CoolingKind::Sd93;
    cp.floor_K = 20.0;
    cp.heating = heating;
    const CoolingModel model(cp, cgs_units);
    const CoolingKernelParams p = model.kernel_params();
    long cases = 0, at_floor = 0;
    for (double n_H : {1e-3, 1.0, 1e3}) {
      const double rho = n_H * cgs::m_H / cp.hydrogen_fraction;
      const CoolingGas g = cooling_gas(p, rho, 0.0, 0.0);
      for (int iT = 0; iT <= 28; ++iT) {
        const double u_s = model.u_from_temperature(std::pow(10.0, 1.5 + 0.25 * iT));
        const double r_s = radiative_dudt(p, g, u_s);
        REQUIRE(r_s != 0.0);
        for (double a_rel : {-3.0, 0.0, 3.0})
          for (int ih = -3; ih <= 3; ++ih) {
            // Steps from 1e-3 to 1e3 of u_s/|r_s|; hydro rate a few times |r_s|.
            const double h = std::pow(10.0, ih) * u_s / std::fabs(r_s);
            const double a = a_rel * std::fabs(r_s);
            const double u = backward_euler_step(p, g, a, u_s, r_s, h);
            auto G = [&](double x) { return x - u_s - h * (a + radiative_dudt(p, g, x)); };
            ++cases;
            REQUIRE(u >= p.u_floor);
            if (u == p.u_floor && G(u) >= 0.0) {  // the root lies below the floor
              ++at_floor;
              continue;
            }
            // A root: G(u) = 0 to the solver's tolerance, or a sign change of G across u where
            // the rate jumps (1e4 K: KI02 below, SD93 above).
            const bool root = std::fabs(G(u)) <= 1e-10 * u;
            const bool jump = G(u * (1 - 1e-11)) <= 0.0 && G(u * (1 + 1e-11)) >= 0.0;
            CHECK((root || jump));
          }
      }
    }
    CHECK(cases == 3 * 29 * 3 * 7);
    CHECK(at_floor > 0);  // the floor case was exercised
  }
}

TEST_CASE("the substep integration stops at its work bound whatever the hydro rate",
          "[cooling][kern]") {
  // Each accepted substep changes u by at most 10%, so a hydro rate a of many orders of magnitude
  // times u / dt takes hundreds of accepted substeps (1e30 u / dt: ~700). The work bound
  // max_substeps used to end only a substep that failed its error test; accepted ones went on
  // past it, and at the centre of a merger remnant (gas thrown to 1.3e4 km/s and 2e9 K) the
  // cooling stage did not finish within minutes on either backend. Now the bound ends the
  // integration (with one last implicit step over the rest), and the result stays between the
  // radiative-only and the hydro-only ends.
  const UnitSystem cgs_units = UnitSystem::from_cgs(1.0, 1.0, 1.0);
  CoolingParams cp;
  cp.kind = CoolingKind::Sd93;
  cp.floor_K = 20.0;
  const CoolingModel model(cp, cgs_units);
  CoolingKernelParams p = model.kernel_params();
  p.max_substeps = 100;
  const double rho = 1.0 * cgs::m_H / cp.hydrogen_fraction;
  const CoolingGas g = cooling_gas(p, rho, 0.0, 0.0);
  for (double T : {1e4, 1e6, 2e9}) {
    const double u0 = model.u_from_temperature(T);
    const double t_cool = u0 / std::fabs(radiative_dudt(p, g, u0));
    for (double growth : {1e10, 1e30, 1e100}) {
      const double dt = 10.0 * t_cool, a = growth * u0 / dt;
      const CoolingSolution s = integrate_cooling(p, g, u0, a, dt);
      INFO("T " << T << " K, a dt / u0 = " << growth << ": " << s.substeps << " substeps, u / u0 "
                << s.u / u0);
      CHECK(s.substeps <= p.max_substeps);
      CHECK(std::isfinite(s.u));
      CHECK(s.u > u0);
      CHECK(s.u <= u0 + a * dt);
      CHECK(s.u >= 0.5 * (u0 + a * dt));  // radiative losses are small against such heating
    }
  }
}
