// Sedov-Taylor point explosion at the size of setups/sedov.yaml (32^3 glass, block steps), with
// and without the Saitoh & Makino (2009) limiter: 205 s CPU time in all, so label `heavy` (not in
// CI); sedov_validation.cpp runs the same comparison at 16^3 in CI.
#include "catch.hpp"
#include "timestep/sedov_support.hpp"

using mpsph::test::run_sedov;
using mpsph::test::SedovResult;

TEST_CASE(
    "Sedov blast, 32^3 glass, block steps: shock radius within 2% with the limiter, "
    "without it a wrong shock, particles inside the cavity and no energy conservation",
    "[heavy][sedov][timestep]") {
  const SedovResult lim = run_sedov("sedov_32_limiter", 32, 16, 4);
  const SedovResult none = run_sedov("sedov_32_no_limiter", 32, 16, 0);
  REQUIRE(lim.t == Approx(0.05));
  REQUIRE(none.t == Approx(0.05));
  INFO("limiter 4: " << lim.describe());
  INFO("no limiter: " << none.describe());
  // The check: the shock radius within 2% of the self-similar one (seen through the
  // kernel, sedov_support.hpp). Measured -0.8% with the limiter, +9.0% without.
  CHECK(std::fabs(lim.error()) < 0.02);
  CHECK(none.error() > 0.04);
  // Penetration: the exact flow holds 0.30% of the swept mass inside R_s/2 (the hot, evacuated
  // cavity); measured 0.35% with the limiter. Without it, ambient particles on long steps are
  // overrun by the shell without feeling it and end up in the cavity: 1.75%.
  CHECK(lim.inner_mass < 0.006);
  CHECK(none.inner_mass > 0.012);
  // Energy: a block scheme is not exactly conservative; measured max |dE/E0| 0.94% with the
  // limiter, 45% without (particles hit by the shell on a long step get its force only at the
  // end of that step, as one kick over the whole step).
  CHECK(lim.max_rel_energy < 0.02);
  CHECK(none.max_rel_energy > 0.2);
}
