// Star formation from clouds (PHYSICS.md section 6): the Jeans criterion of a cloud of the cold
// phase's radius, the free-fall time, and what each model does to a cloud that forms a star.
#include "starform/cloud_starform_kern.hpp"

#include <cmath>

#include "catch.hpp"
#include "starform_test_support.hpp"

using namespace mpsph;

namespace {

// One cloud of mass m [Msun] on a step of dt [code time] at (sub)step `step`.
ParticleStore one_cloud(double m, double dt, double* tick_len) {
  ParticleStore s = test::cloud_box(1, m);
  *tick_len = test::one_step(s, dt);
  return s;
}

}  // namespace

TEST_CASE("a cloud's Jeans mass and threshold agree with the cgs formulas", "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds);
  const CloudStarformParams& p = m.clouds;
  // Defaults: T = 100 K, mu = 1.22, Sigma_cl = 100 Msun/pc^2. In cgs, from scratch:
  const double c2 = cgs::k_B * 100.0 / (1.22 * cgs::m_H);
  const double sigma = 100.0 * cgs::Msun / (cgs::pc * cgs::pc);
  const double m_cgs = 1e4 * cgs::Msun;
  const double R = std::sqrt(m_cgs / (cgs::kPi * sigma));
  const double rho = m_cgs / (4.0 / 3.0 * cgs::kPi * R * R * R);
  // Jeans length sqrt(pi c^2/(G rho)), mass of the sphere of that diameter.
  const double lambda = std::sqrt(cgs::kPi * c2 / (cgs::G * rho));
  const double mj_cgs = 4.0 / 3.0 * cgs::kPi * std::pow(lambda / 2.0, 3) * rho;
  const double rho_code = cloud_mean_density(1e4, p.pi_sigma);
  CHECK(rho_code * cgs::Msun / std::pow(cgs::pc, 3) == Approx(rho).epsilon(1e-12));
  CHECK(jeans_mass(p.c_cloud, rho_code, p.G) == Approx(mj_cgs / cgs::Msun).epsilon(1e-6));
  const double t_ff = std::sqrt(3.0 * cgs::kPi / (32.0 * cgs::G * rho));
  CHECK(free_fall_time(rho_code, p.G) * test::sf_units().time_cgs() == Approx(t_ff).epsilon(1e-6));
  // The threshold: a cloud of mass m_J has the Jeans mass m_J (M_J ~ m^(1/4)).
  const double mJ = cloud_jeans_threshold(p.c_cloud, p.pi_sigma, p.G);
  CHECK(jeans_mass(p.c_cloud, cloud_mean_density(mJ, p.pi_sigma), p.G) ==
        Approx(mJ).epsilon(1e-12));
  // 3.445 c^4 / (G^2 Sigma): ~840 Msun at the defaults.
  CHECK(mJ == Approx(3.4451418533666 * std::pow(c2, 2) / (cgs::G * cgs::G * sigma) / cgs::Msun)
                  .epsilon(1e-6));
  CHECK(mJ > 800);
  CHECK(mJ < 900);
}

TEST_CASE(
    "clouds (free_fall): only a cloud above its Jeans mass forms a star, of eps_SF of its mass",
    "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds, false, CloudsTrigger::FreeFall);
  const double mJ = cloud_jeans_threshold(m.clouds.c_cloud, m.clouds.pi_sigma, m.clouds.G);
  // A step of 1e6 free-fall times: the probability is 1, only the criterion decides.
  const double dt = 1e6 * free_fall_time(cloud_mean_density(mJ, m.clouds.pi_sigma), m.clouds.G);
  double tick_len = 0;
  {
    ParticleStore s = one_cloud(0.999 * mJ, dt, &tick_len);
    ParticleView v = s.view();
    CHECK(cloud_form_star(m.clouds, v, 0, dt, 3, 7.0) == 0.0);
    CHECK(s.spawn_mass[0] == 0.0);
  }
  ParticleStore s = one_cloud(1.001 * mJ, dt, &tick_len);
  s.initial_mass[0] = 5.0;  // whatever the cloud's field held
  const double m0 = s.mass[0];
  ParticleView v = s.view();
  CHECK(cloud_form_star(m.clouds, v, 0, dt, 3, 7.0) == Approx(0.05 * m0).epsilon(1e-15));
  CHECK(s.spawn_mass[0] == 0.05 * m0);
  CHECK(int(s.spawn_type[0]) == int(kNewStar));
  CHECK(s.type[0] == kCloud);
  CHECK(s.mass[0] == m0);           // the order stage takes the star's mass off
  CHECK(s.initial_mass[0] == 0.0);  // marks the child for its birth record
  // A cloud with a pending request forms nothing more.
  CHECK(cloud_form_star(m.clouds, v, 0, dt, 4, 7.0) == 0.0);
}

TEST_CASE("probabilistic: the whole cloud becomes a star in place with its birth record",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Probabilistic);
  double tick_len = 0;
  // 10 Msun: far below any Jeans mass; probabilistic has no Jeans criterion.
  const double t_ff = free_fall_time(cloud_mean_density(10.0, m.clouds.pi_sigma), m.clouds.G);
  const double dt = 1e6 * t_ff;
  ParticleStore s = one_cloud(10.0, dt, &tick_len);
  const ParticleStore before = s;
  ParticleView v = s.view();
  CHECK(cloud_form_star(m.clouds, v, 0, dt, 3, 7.0) == 10.0);
  CHECK(s.type[0] == kNewStar);
  CHECK(s.mass[0] == 10.0);
  CHECK(s.spawn_mass[0] == 0.0);
  CHECK(s.birth_time[0] == 7.0);
  CHECK(s.initial_mass[0] == 10.0);
  CHECK(s.birth_z[0] == birth_metallicity(before.z_o[0], before.z_fe[0]));
  CHECK(s.pos[0].x == before.pos[0].x);
  CHECK(s.vel[0].y == before.vel[0].y);
  CHECK(s.z_fe[0] == before.z_fe[0]);
  // A star is not a cloud: nothing more.
  CHECK(cloud_form_star(m.clouds, v, 0, dt, 4, 8.0) == 0.0);
}
