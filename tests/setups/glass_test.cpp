// Glass initial conditions (setups/glass.hpp) and the Sod setup built from them.
#include "setups/glass.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "setups/sod.hpp"

using namespace mpsph;

TEST_CASE("glass relaxation reaches a uniform density without lattice planes", "[setups][glass]") {
  GlassParams p;
  p.n = 1000;
  const Glass g = make_glass(p);
  REQUIRE(g.pos.size() == 1000);
  // A random start has std(rho)/rho ~ 0.26 at N_B = 50; the relaxation stops at the target.
  CHECK(g.rho_scatter < p.target_scatter);
  CHECK(g.iterations < p.max_iterations);
  double min_d2 = 1e300;
  for (std::size_t i = 0; i < g.pos.size(); ++i) {
    const Vec3d& q = g.pos[i];
    REQUIRE((q.x >= 0 && q.x < 1 && q.y >= 0 && q.y < 1 && q.z >= 0 && q.z < 1));
    for (std::size_t j = 0; j < i; ++j) {
      Vec3d d = q - g.pos[j];
      for (double* c : {&d.x, &d.y, &d.z}) *c -= std::nearbyint(*c);  // periodic
      min_d2 = std::min(min_d2, norm2(d));
    }
  }
  // Pressure keeps particles apart: no pair closer than 0.4 mean spacings (random points: the
  // closest pair of 1000 is ~0.02 spacings).
  CHECK(std::sqrt(min_d2) > 0.4 * std::cbrt(1.0 / 1000));
  // No planes: the x coordinates of a lattice take 10 values; of a glass, all differ.
  std::vector<double> xs;
  for (const Vec3d& q : g.pos) xs.push_back(q.x);
  std::sort(xs.begin(), xs.end());
  CHECK(std::adjacent_find(xs.begin(), xs.end()) == xs.end());
  // Deterministic: a function of (n, seed).
  const Glass again = make_glass(p);
  CHECK(again.pos[17].x == g.pos[17].x);
  CHECK(again.pos[999].z == g.pos[999].z);
}

TEST_CASE("Sod glass setup holds the stated densities", "[setups][sod]") {
  SodParams p;
  p.nx_left = 24;
  p.ny_left = 12;
  const SodSetup st = make_sod(p);
  const double ly = 12.0 / 24.0;
  double m_left = 0, m_right = 0;
  for (std::size_t i = 0; i < st.particles.size(); ++i)
    (st.particles.pos[i].x < 1.0 ? m_left : m_right) += st.particles.mass[i];
  // 2 glass cubes of 12^3 particles on the left, 2 of 6^3 on the right, all the same mass.
  CHECK(st.particles.size() == 2 * 1728 + 2 * 216);
  CHECK(m_left == Approx(p.rho_left * ly * ly).epsilon(1e-12));
  CHECK(m_right == Approx(p.rho_right * ly * ly).epsilon(1e-12));
  // The glass cubes must tile each half, and hold enough particles for N_B neighbours.
  auto error_of = [](const SodParams& q) { return test::error_message([&] { make_sod(q); }); };
  p.ny_left = 10;
  CHECK(error_of(p).find("multiple of ny_left") != std::string::npos);
  p.nx_left = p.ny_left = 8;  // 4^3 = 64 particles in a right cube
  CHECK(error_of(p).find("too few") != std::string::npos);
}
