// Single-phase star formation (Katz 1992): each criterion alone stops a particle from forming
// stars, and a particle that forms one becomes the star in place, its thermal energy accounted.
#include "starform/katz_kern.hpp"

#include <cmath>

#include "catch.hpp"
#include "starform_test_support.hpp"

using namespace mpsph;

namespace {

// A particle that meets every criterion of the model `m`: n_H = 1 cm^-3, T = 100 K, div v = -1,
// h = 10 pc, c = 0.1 km/s (h/c = 98 Myr against 1/sqrt(4 pi G rho) = 12 Myr).
struct Gas {
  double rho, h = 10.0, c = 0.1, div_v = -1.0, T = 100.0, n_H = 1.0, dudt_rad = 0.0, u = 0.0;
};

Gas eligible(const StarformModel& m) {
  Gas g;
  g.rho = g.n_H / (0.7 * m.katz.nH_per_rho);
  g.u = u_from_temperature(m.katz.mu, m.katz.u_to_T, g.T);
  // Cooling: t_cool = t_ff / 2.
  g.dudt_rad = -2.0 * g.u / free_fall_time(g.rho, m.katz.G);
  return g;
}

unsigned failures(const StarformModel& m, const Gas& g) {
  return katz_failures(m.katz, g.rho, g.h, g.c, g.div_v, g.T, g.n_H, g.dudt_rad, g.u);
}

}  // namespace

TEST_CASE("katz: each criterion alone blocks star formation", "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Katz, true);
  const Gas ok = eligible(m);
  CHECK(failures(m, ok) == 0u);
  Gas g = ok;
  g.div_v = 0.0;
  CHECK(failures(m, g) == unsigned(kKatzDiverging));
  g = ok;
  // Jeans stable: h/c just below 1/sqrt(4 pi G rho).
  g.c = 1.001 * g.h * std::sqrt(4.0 * kStarformPi * m.katz.G * g.rho);
  CHECK(failures(m, g) == unsigned(kKatzJeansStable));
  g.c = 0.999 * g.h * std::sqrt(4.0 * kStarformPi * m.katz.G * g.rho);
  CHECK(failures(m, g) == 0u);
  g = ok;
  g.dudt_rad = -0.999 * g.u / free_fall_time(g.rho, m.katz.G);  // t_cool just above t_ff
  CHECK(failures(m, g) == unsigned(kKatzSlowCooling));
  g.dudt_rad = 1.0;  // heating
  CHECK(failures(m, g) == unsigned(kKatzSlowCooling));
  g = ok;
  g.n_H = 0.1;  // n_SF = 0.1: strictly above
  CHECK(failures(m, g) == unsigned(kKatzTooThin));
  g = ok;
  g.T = 3e4;  // T_SF = 3e4 K: strictly below
  CHECK(failures(m, g) == unsigned(kKatzTooHot));
  // Without cooling the cooling time is not asked for.
  const StarformModel adiabatic = test::sf_model(StarformKind::Katz, false);
  g = ok;
  g.dudt_rad = 0.0;
  CHECK(failures(adiabatic, g) == 0u);
}

TEST_CASE("katz: a particle that forms a star becomes it in place, and its m u leaves the gas",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Katz, false);
  double rho = 0;
  ParticleStore s = test::katz_box(2, m, 1.0, 100.0, &rho);
  const double t_ff = free_fall_time(rho, m.katz.G);
  const double dt = 1e6 * t_ff;  // probability 1
  const double tick_len = test::one_step(s, dt);
  (void)tick_len;
  s.divv[1] = 0.5f;  // diverging: stays gas
  const ParticleStore before = s;
  ParticleView v = s.view();
  v.n_gas = 2;
  const KatzResult r0 = katz_form_star(m.katz, v, 0, dt, 11, 2.5);
  const KatzResult r1 = katz_form_star(m.katz, v, 1, dt, 11, 2.5);
  CHECK(r0.mass == before.mass[0]);
  CHECK(r0.thermal == before.mass[0] * before.u[0]);
  CHECK(r1.mass == 0.0);
  CHECK(s.type[0] == kNewStar);
  CHECK(s.type[1] == kGas);
  CHECK(s.u[0] == 0.0);
  CHECK(s.u0[0] == 0.0);
  CHECK(s.birth_time[0] == 2.5);
  CHECK(s.initial_mass[0] == before.mass[0]);
  CHECK(s.birth_z[0] == birth_metallicity(before.z_o[0], before.z_fe[0]));
  CHECK(s.vel[0].x == before.vel[0].x);
  CHECK(s.u[1] == before.u[1]);
}
