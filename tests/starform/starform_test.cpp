// The OpenMP drivers of star formation (starform.cpp): mass, momentum and metals conserved when
// stars form (in place and as children made by the order stage), the rates of boxes that meet a
// model's criteria against the analytic rate within the binomial error, and decisions that do not
// depend on the thread count or on which particles share the step.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "run/particle_changes.hpp"
#include "starform_test_support.hpp"

using namespace mpsph;

namespace {

double rel(double a, double b) {
  return std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
}

void check_conserved(const test::Totals& a, const test::Totals& b) {
  CHECK(rel(a.mass, b.mass) < 1e-14);
  CHECK(rel(a.o, b.o) < 1e-14);
  CHECK(rel(a.fe, b.fe) < 1e-14);
  // Momentum: relative to the sum of |m v|, which the random velocities nearly cancel.
  CHECK(std::fabs(a.momentum.x - b.momentum.x) < 1e-14 * a.mass * 10.0);
  CHECK(std::fabs(a.momentum.y - b.momentum.y) < 1e-14 * a.mass * 10.0);
  CHECK(std::fabs(a.momentum.z - b.momentum.z) < 1e-14 * a.mass * 10.0);
}

// Fraction of `n` independent particles that formed stars, against the expected fraction F, in
// units of the binomial standard deviation sqrt(F (1 - F) / n).
double sigmas(double measured, double F, std::size_t n) {
  return (measured - F) / std::sqrt(F * (1.0 - F) / double(n));
}

}  // namespace

TEST_CASE(
    "clouds (free_fall): children conserve mass, momentum and metals and get their birth records",
    "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds, false, CloudsTrigger::FreeFall);
  const std::size_t n = 2000;
  // 1e4 .. 2e4 Msun: all above the Jeans mass (840 Msun); steps of 1e6 free-fall times.
  ParticleStore s = test::cloud_box(n, 1e4, 1.0);
  const double dt = 1e6 * free_fall_time(cloud_mean_density(1e4, m.clouds.pi_sigma), m.clouds.G);
  const double tick_len = test::one_step(s, dt);
  const ParticleStore before = s;
  const test::Totals t0 = test::totals(s);
  const StarformStats st = form_stars(s.view(), ActiveSet{}, m, tick_len, 5, 2.0);
  CHECK(st.stars == long(n));
  CHECK(st.thermal == 0.0);
  uint64_t next_id = n + 1;
  REQUIRE(spawn_particles(s, next_id) == n);
  REQUIRE(s.size() == 2 * n);
  check_conserved(t0, test::totals(s));
  CHECK(finish_spawned_stars(s.view(), n, 2 * n, 2.0) == n);
  double formed = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t c = n + k;  // children in the order of their parents
    REQUIRE(s.type[c] == kNewStar);
    CHECK(s.id[c] == n + 1 + k);
    CHECK(s.mass[c] == 0.05 * before.mass[k]);
    CHECK(s.mass[k] + s.mass[c] == Approx(before.mass[k]).epsilon(1e-15));
    CHECK(s.pos[c].x == before.pos[k].x);
    CHECK(s.vel[c].z == before.vel[k].z);
    CHECK(s.z_o[c] == before.z_o[k]);
    CHECK(s.birth_time[c] == 2.0);
    CHECK(s.initial_mass[c] == s.mass[c]);
    CHECK(s.birth_z[c] == birth_metallicity(before.z_o[k], before.z_fe[k]));
    formed += s.mass[c];
  }
  CHECK(stellar_mass_formed(s.view()) == Approx(formed).epsilon(1e-14));
  CHECK(st.mass == Approx(formed).epsilon(1e-14));
}

TEST_CASE("katz: a uniform box forms stars at c* rho / t_ff within the binomial error",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Katz);
  const std::size_t n = 20000;
  double rho = 0;
  ParticleStore s = test::katz_box(n, m, 1.0, 100.0, &rho);
  const double t_ff = free_fall_time(rho, m.katz.G);
  // 20 steps of t_ff / 20: each particle forms its star with probability
  // F = 1 - exp(-c* t_ff / t_ff) = 1 - exp(-0.1), the integral of dM_*/dt = c* M_gas / t_ff.
  const double dt = t_ff / 20.0;
  const double tick_len = test::one_step(s, dt);
  const test::Totals t0 = test::totals(s);
  double thermal0 = 0;
  for (std::size_t i = 0; i < n; ++i) thermal0 += s.mass[i] * s.u[i];
  double mass = 0, thermal = 0, first_rate = 0;
  for (int k = 0; k < 20; ++k) {
    ParticleView v = s.view();
    v.n_gas = n;
    const StarformStats st = form_stars(v, ActiveSet{}, m, tick_len, k, (k + 1) * dt);
    mass += st.mass;
    thermal += st.thermal;
    if (k == 0) first_rate = st.mass / dt;
  }
  const double M0 = t0.mass;
  const double F = -std::expm1(-0.1);
  const double z = sigmas(mass / M0, F, n);
  CHECK(std::fabs(z) < 4.0);
  // The first step's rate against c* M / t_ff (the probability of one step, 1 - exp(-0.005)).
  const double F1 = -std::expm1(-0.005);
  const double z1 = sigmas(first_rate * dt / M0, F1, n);
  CHECK(std::fabs(z1) < 4.0);
  // Nothing is lost: the stars are the same particles; their thermal energy is accounted.
  check_conserved(t0, test::totals(s));
  double thermal_left = 0, stars = 0;
  for (std::size_t i = 0; i < n; ++i) {
    thermal_left += s.type[i] == kGas ? s.mass[i] * s.u[i] : 0.0;
    stars += s.type[i] == kNewStar ? s.mass[i] : 0.0;
  }
  CHECK(stars == Approx(mass).epsilon(1e-14));
  // 20000 positive terms summed in two orders: round-off ~ sqrt(N) 1e-16.
  CHECK(thermal_left + thermal == Approx(thermal0).epsilon(1e-13));
  std::printf(
      "[starform] katz box, N = %zu, c* = 0.1, t_ff = %.4g Myr: formed %.5f of the gas in one "
      "t_ff (expected %.5f, %.2f sigma); first-step SFR %.5g Msun/Myr against c* M/t_ff = %.5g "
      "(%.2f sigma)\n",
      n, t_ff * test::sf_units().time_cgs() / cgs::Myr, mass / M0, F, z,
      first_rate / (test::sf_units().time_cgs() / cgs::Myr),
      0.1 * M0 / t_ff / (test::sf_units().time_cgs() / cgs::Myr), z1);
}

TEST_CASE("probabilistic: a box of clouds forms stars at eps_ff m / t_ff within the binomial error",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Probabilistic);
  const std::size_t n = 20000;
  ParticleStore s = test::cloud_box(n, 1e4);
  const double t_ff = free_fall_time(cloud_mean_density(1e4, m.clouds.pi_sigma), m.clouds.G);
  // 50 steps of t_ff / 10 with eps_ff = 0.02: F = 1 - exp(-0.02 * 5) = 1 - exp(-0.1).
  const double dt = t_ff / 10.0;
  const double tick_len = test::one_step(s, dt);
  const test::Totals t0 = test::totals(s);
  double mass = 0;
  for (int k = 0; k < 50; ++k)
    mass += form_stars(s.view(), ActiveSet{}, m, tick_len, k, (k + 1) * dt).mass;
  const double F = -std::expm1(-0.1);
  const double z = sigmas(mass / t0.mass, F, n);
  CHECK(std::fabs(z) < 4.0);
  check_conserved(t0, test::totals(s));
  CHECK(stellar_mass_formed(s.view()) == Approx(mass).epsilon(1e-14));
  std::printf(
      "[starform] probabilistic cloud box, N = %zu, eps_ff = 0.02, 5 t_ff: formed %.5f of the "
      "cloud mass (expected %.5f, %.2f sigma)\n",
      n, mass / t0.mass, F, z);
}

TEST_CASE("clouds (free_fall): unstable clouds form one star per free-fall time on average",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds, false, CloudsTrigger::FreeFall);
  const std::size_t n = 20000;
  ParticleStore s = test::cloud_box(n, 1e4);
  const double t_ff = free_fall_time(cloud_mean_density(1e4, m.clouds.pi_sigma), m.clouds.G);
  const double dt = 0.1 * t_ff;
  const double tick_len = test::one_step(s, dt);
  const StarformStats st = form_stars(s.view(), ActiveSet{}, m, tick_len, 0, dt);
  // Each cloud asks for a star of 0.05 m with probability 1 - exp(-0.1): the expected SFR
  // eps_SF M / t_ff within the binomial error.
  const double p = -std::expm1(-0.1);
  const double z = sigmas(double(st.stars) / double(n), p, n);
  CHECK(std::fabs(z) < 4.0);
  CHECK(st.mass == Approx(0.05 * 1e4 * double(st.stars)).epsilon(1e-12));
  std::printf(
      "[starform] clouds box, N = %zu unstable clouds, one step of 0.1 t_ff: %ld stars (expected "
      "%.1f, %.2f sigma)\n",
      n, st.stars, p * double(n), z);
}

TEST_CASE("the same stars form with any thread count, and only active particles form them",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Katz);
  const std::size_t n = 5000;
  double rho = 0;
  ParticleStore base = test::katz_box(n, m, 1.0, 100.0, &rho);
  const double dt = free_fall_time(rho, m.katz.G);  // probability 0.095 per particle
  const double tick_len = test::one_step(base, dt);
  auto run = [&](int threads, ParticleStore s) {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    ParticleView v = s.view();
    v.n_gas = n;
    form_stars(v, ActiveSet{}, m, tick_len, 42, dt);
    omp_set_num_threads(saved);
    return s;
  };
  const ParticleStore a = run(1, base), b = run(2, base);
  long formed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(a.type[i] == b.type[i]);
    formed += a.type[i] == kNewStar;
  }
  CHECK(formed > 300);  // 0.095 of 5000: ~476
  // Only the even particles active (block steps): the odd ones keep their type, the even ones
  // form the same stars as when all were active (the draw depends on id and step only).
  std::vector<uint32_t> even;
  for (std::size_t i = 0; i < n; i += 2) even.push_back(uint32_t(i));
  ActiveSet act;
  act.index = even.data();
  act.n = act.n_gas = even.size();
  act.tick = int64_t(1) << 20;
  ParticleStore c = base;
  ParticleView v = c.view();
  v.n_gas = n;
  form_stars(v, act, m, tick_len, 42, dt);
  for (std::size_t i = 0; i < n; ++i)
    CHECK(int(c.type[i]) == (i % 2 == 0 ? int(a.type[i]) : int(kGas)));
}
