// The Sedov point-explosion initial conditions: box, masses, the deposited energy and its centre.
#include "setups/sedov.hpp"

#include <algorithm>
#include <cmath>

#include "catch.hpp"
#include "core/error.hpp"

using namespace mpsph;

TEST_CASE("sedov: uniform glass at rest with E in the n_inject particles nearest the centre",
          "[setups][sedov]") {
  SedovParams p;
  p.n_side = 12;
  p.glass_n_side = 6;
  p.box_size = 2.0;
  p.rho0 = 3.0;
  p.energy = 5.0;
  p.u_background = 1e-5;
  p.n_inject = 10;
  const SedovSetup sed = make_sedov(p);
  const ParticleStore& s = sed.particles;
  REQUIRE(s.size() == 12 * 12 * 12);
  CHECK(sed.box.periodic);
  CHECK(sed.box.size.x == 2.0);
  CHECK(sed.centre.y == 1.0);
  double mass = 0, heat = 0;
  Vec3d heat_centre{0, 0, 0};
  std::size_t n_hot = 0;
  double r_hot = 0, r_cold = 1e300;  // farthest heated, nearest unheated particle
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.type[i] == kGas);
    CHECK(norm(s.vel[i]) == 0.0);
    CHECK(s.pos[i].x >= 0.0);
    CHECK(s.pos[i].x < 2.0);
    mass += s.mass[i];
    const double e = s.mass[i] * (s.u[i] - p.u_background);
    heat += e;
    heat_centre += e * (s.pos[i] - sed.centre);
    const double r = norm(s.pos[i] - sed.centre);
    if (s.u[i] > p.u_background) {
      ++n_hot;
      r_hot = std::max(r_hot, r);
    } else {
      CHECK(s.u[i] == p.u_background);
      r_cold = std::min(r_cold, r);
    }
  }
  // Mass rho0 L^3 and the deposit E, to round-off of the sums.
  CHECK(mass == Approx(3.0 * 8.0).epsilon(1e-12));
  CHECK(heat == Approx(5.0).epsilon(1e-12));
  // Exactly the n_inject nearest particles are heated.
  CHECK(n_hot == 10);
  CHECK(r_hot < r_cold);
  // The kernel weights centre the deposit on the box centre to within the glass noise: the
  // energy-weighted mean offset is well inside the heated sphere (radius r_hot).
  CHECK(norm(heat_centre) / heat < 0.5 * r_hot);
}

TEST_CASE("sedov: n_side must tile the glass, n_inject must leave ambient gas", "[setups][sedov]") {
  SedovParams p;
  p.n_side = 10;
  p.glass_n_side = 6;
  CHECK_THROWS_AS(make_sedov(p), Error);
  p.n_side = 6;
  p.n_inject = 216;
  CHECK_THROWS_AS(make_sedov(p), Error);
}
