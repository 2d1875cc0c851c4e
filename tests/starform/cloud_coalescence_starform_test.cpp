// Star formation at the coalescence of clouds (starform.model clouds, clouds_trigger coalescence,
// PHYSICS.md section 6): the cold phase's collision stage (multiphase/sticky_clouds.hpp) merges
// two clouds in a step, the star-formation stage of the same step (starform.hpp) asks for one star
// of eps_SF (m1 + m2) when the merged cloud exceeds its Jeans mass, and the order stage
// (run/particle_changes.hpp) makes it: at the pair's centre of mass, with its centre-of-mass
// velocity and merged metals. Units pc, Msun, km/s (G = 4.3e-3 pc (km/s)^2 / Msun).
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "multiphase/conserved_totals.hpp"
#include "multiphase/sticky_clouds.hpp"
#include "run/particle_changes.hpp"
#include "starform_test_support.hpp"

using namespace mpsph;

namespace {

struct Cloud {
  uint64_t id;
  double m;
  Vec3d x, v;
  double z_o, z_fe;
};

// Clouds on one step of length dt (the collision and star-formation stages of that step).
ParticleStore make_clouds(const std::vector<Cloud>& c, double dt, double* tick_len) {
  ParticleStore s;
  s.resize(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    s.id[i] = c[i].id;
    s.type[i] = kCloud;
    s.mass[i] = c[i].m;
    s.pos[i] = s.pos0[i] = c[i].x;
    s.vel[i] = s.vel0[i] = c[i].v;
    s.z_o[i] = c[i].z_o;
    s.z_fe[i] = c[i].z_fe;
    s.x_h[i] = 0.7;
    s.dt_limit[i] = dt;
  }
  *tick_len = test::one_step(s, dt);
  return s;
}

// The collision parameters of the cold phase at Sigma_cl = 100 Msun/pc^2 (the starform model's).
CloudCollisionParams collision(const StarformModel& m) {
  CloudCollisionParams p;
  p.pi_sigma = m.clouds.pi_sigma;
  p.G = m.clouds.G;
  p.beta_r = p.beta_t = 0.7;
  p.m_max = 1e7;
  return p;
}

// Two clouds of masses m1, m2 at 0.9 of the sum of their radii, approaching at `v_rel` km/s
// (relative velocity (v_rel, 0, 0.5)) while the pair moves at ~4 km/s, with different metals.
std::vector<Cloud> pair(const StarformModel& m, double m1, double m2, double v_rel) {
  const double r = 0.9 * (std::sqrt(m1 / m.clouds.pi_sigma) + std::sqrt(m2 / m.clouds.pi_sigma));
  const Vec3d d = (r / std::sqrt(1.05)) * Vec3d{1.0, 0.2, -0.1};  // |d| = r
  const Vec3d x1{100.0, 200.0, 300.0};
  return {{12, m1, x1, {0.5 * v_rel + 3.0, -2.0, 1.5}, 8e-3, 1.5e-3},
          {5, m2, x1 + d, {-0.5 * v_rel + 3.0, -2.0, 1.0}, 2e-3, 0.4e-3}};
}

// The collision stage, then the star-formation stage (in `sf_step`), then the order stage's
// children: returns the stars formed (the stage's count). The removed cloud of a merger stays in
// the store (type kRemoved, mass 0) until a sort would drop it.
long coalesce_and_form(ParticleStore& s, const StarformModel& m, double tick_len, long step,
                       long sf_step, CloudCollisionStats* collided) {
  CpuCloudScratch scratch;
  *collided = collide_cloud_set(s.view(), ActiveSet{}, Box{}, collision(m), 0, s.size(), step, 0.0,
                                scratch);
  const StarformStats st = form_stars(s.view(), ActiveSet{}, m, tick_len, sf_step, 5.0);
  uint64_t next_id = 100;
  spawn_particles(s, next_id);
  finish_spawned_stars(s.view(), 0, s.size(), 5.0);
  return st.stars;
}

}  // namespace

TEST_CASE("clouds (coalescence): two clouds merging above their Jeans mass form one star",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds);  // trigger coalescence (default)
  REQUIRE(m.clouds.at_coalescence);
  const double mJ = cloud_jeans_threshold(m.clouds.c_cloud, m.clouds.pi_sigma, m.clouds.G);
  // Each cloud alone below m_J (840 Msun at 100 K), together above it; 1 km/s is below their
  // escape speed (~2 km/s for 1000 Msun at R = 1.8 pc), so they coalesce.
  const double m1 = 0.7 * mJ, m2 = 0.5 * mJ;
  double tick_len = 0;
  ParticleStore s = make_clouds(pair(m, m1, m2, 1.0), 0.1, &tick_len);
  const ParticleStore before = s;
  const test::ConservedTotals t0 = test::conserved_totals(s);
  CloudCollisionStats col;
  const long stars = coalesce_and_form(s, m, tick_len, 7, 7, &col);
  REQUIRE(col.mergers == 1);
  CHECK(stars == 1);
  // One cloud (the lower id, 5, index 1), the removed one (mass 0) and one star, its child.
  REQUIRE(s.size() == 3);
  const std::size_t c = 1, star = 2;
  CHECK(s.type[0] == kRemoved);
  CHECK(s.mass[0] == 0.0);
  REQUIRE(s.type[c] == kCloud);
  REQUIRE(s.type[star] == kNewStar);
  CHECK(s.id[c] == 5);
  CHECK(s.id[star] == 100);
  const double M = m1 + m2;
  CHECK(s.mass[star] == Approx(0.05 * M).epsilon(1e-15));
  CHECK(s.mass[c] + s.mass[star] == Approx(M).epsilon(1e-15));
  CHECK(s.initial_mass[star] == s.mass[star]);
  CHECK(s.birth_time[star] == 5.0);
  // At the pair's centre of mass, with its centre-of-mass velocity and merged metals.
  const Vec3d x_cm = (1.0 / M) * (m1 * before.pos[0] + m2 * before.pos[1]);
  const Vec3d v_cm = (1.0 / M) * (m1 * before.vel[0] + m2 * before.vel[1]);
  CHECK(norm(s.pos[star] - x_cm) <= 1e-15 * norm(x_cm));
  CHECK(norm(s.vel[star] - v_cm) <= 1e-15 * norm(v_cm));
  CHECK(s.z_o[star] == Approx((m1 * 8e-3 + m2 * 2e-3) / M).epsilon(1e-15));
  CHECK(s.z_fe[star] == Approx((m1 * 1.5e-3 + m2 * 0.4e-3) / M).epsilon(1e-15));
  CHECK(s.birth_z[star] == birth_metallicity(s.z_o[star], s.z_fe[star]));
  CHECK(s.pos[c].x == s.pos[star].x);
  CHECK(s.vel[c].y == s.vel[star].y);
  // Mass, momentum and metals of the pair = cloud + star, to round-off.
  const test::ConservedTotals t1 = test::conserved_totals(s);
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-15 * t0.mass);
  CHECK(std::fabs(t1.o - t0.o) <= 1e-15 * t0.o);
  CHECK(std::fabs(t1.fe - t0.fe) <= 1e-15 * t0.fe);
  CHECK(norm(t1.p - t0.p) <= 1e-15 * t0.p_scale);
  // The unstable merged cloud forms no further star without another coalescence.
  const StarformStats again = form_stars(s.view(), ActiveSet{}, m, tick_len, 8, 6.0);
  CHECK(again.stars == 0);
}

TEST_CASE("clouds (coalescence): no star below the Jeans mass, from a bounce or an earlier step",
          "[starform][unit]") {
  const StarformModel m = test::sf_model(StarformKind::Clouds);
  const double mJ = cloud_jeans_threshold(m.clouds.c_cloud, m.clouds.pi_sigma, m.clouds.G);
  double tick_len = 0;
  CloudCollisionStats col;
  {
    // Merged mass 0.999 m_J: stable.
    ParticleStore s = make_clouds(pair(m, 0.6 * mJ, 0.399 * mJ, 0.5), 0.1, &tick_len);
    CHECK(coalesce_and_form(s, m, tick_len, 3, 3, &col) == 0);
    CHECK(col.mergers == 1);
    CHECK(s.size() == 2);  // no child
    CHECK(s.type[1] == kCloud);
  }
  {
    // Two unstable clouds (20 m_J together) meeting at 40 km/s, above their escape speed: they
    // bounce, no coalescence, no star.
    ParticleStore s = make_clouds(pair(m, 10 * mJ, 10 * mJ, 40.0), 0.1, &tick_len);
    CHECK(coalesce_and_form(s, m, tick_len, 3, 3, &col) == 0);
    CHECK(col.collisions == 1);
    CHECK(col.mergers == 0);
    CHECK(s.size() == 2);
  }
  {
    // A coalescence of step 3 read by the star formation of step 4: not this step's event.
    ParticleStore s = make_clouds(pair(m, 0.7 * mJ, 0.5 * mJ, 1.0), 0.1, &tick_len);
    CHECK(coalesce_and_form(s, m, tick_len, 3, 4, &col) == 0);
    CHECK(col.mergers == 1);
  }
  {
    // The free-fall trigger ignores coalescences: with a step of 1e-9 t_ff the merged unstable
    // cloud (probability 1e-9) forms nothing.
    const StarformModel ff = test::sf_model(StarformKind::Clouds, false, CloudsTrigger::FreeFall);
    const double t_ff = free_fall_time(cloud_mean_density(1.2 * mJ, m.clouds.pi_sigma), m.clouds.G);
    ParticleStore s = make_clouds(pair(m, 0.7 * mJ, 0.5 * mJ, 1.0), 1e-9 * t_ff, &tick_len);
    CHECK(coalesce_and_form(s, ff, tick_len, 3, 3, &col) == 0);
    CHECK(col.mergers == 1);
  }
}

TEST_CASE("clouds (coalescence): a box of colliding clouds forms one star per unstable merger",
          "[starform][unit]") {
  // 3000 clouds of 0.1 .. 1 m_J in an 80 pc box at ~1 km/s: many coalescences in one step; the
  // stars are exactly the mergers whose merged mass exceeds m_J, each eps_SF of that mass, and
  // mass, momentum and metals of clouds + stars are conserved to round-off.
  const StarformModel m = test::sf_model(StarformKind::Clouds);
  const double mJ = cloud_jeans_threshold(m.clouds.c_cloud, m.clouds.pi_sigma, m.clouds.G);
  const std::size_t n = 3000;
  std::vector<Cloud> c(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 77, kStreamSetup, k); };
    c[i] = {i + 1,
            0.1 * mJ * std::pow(10.0, u(0)),
            {80 * u(1), 80 * u(2), 80 * u(3)},
            {2 * (u(4) - 0.5), 2 * (u(5) - 0.5), 2 * (u(6) - 0.5)},
            1e-2 * u(7),
            2e-3 * u(8)};
  }
  double tick_len = 0;
  ParticleStore s = make_clouds(c, 0.1, &tick_len);
  const test::ConservedTotals t0 = test::conserved_totals(s);
  // The merged masses above m_J, from the collision stage alone.
  ParticleStore probe = s;
  CpuCloudScratch scratch;
  const CloudCollisionStats pc =
      collide_cloud_set(probe.view(), ActiveSet{}, Box{}, collision(m), 0, n, 11, 0.0, scratch);
  long unstable = 0;
  double expected = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (probe.coalescence_step[i] == 12 && probe.mass[i] > mJ) {
      ++unstable;
      expected += 0.05 * probe.mass[i];
    }
  CloudCollisionStats col;
  const long stars = coalesce_and_form(s, m, tick_len, 11, 11, &col);
  REQUIRE(col.mergers == pc.mergers);
  REQUIRE(col.mergers > 50);
  CHECK(unstable > 20);
  CHECK(unstable < col.mergers);  // some merged clouds stay below m_J
  CHECK(stars == unstable);
  double formed = 0;
  long n_stars = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.type[i] == kNewStar) formed += s.mass[i], ++n_stars;
  CHECK(n_stars == unstable);
  CHECK(formed == Approx(expected).epsilon(1e-14));
  const test::ConservedTotals t1 = test::conserved_totals(s);
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-14 * t0.mass);
  CHECK(std::fabs(t1.o - t0.o) <= 1e-14 * t0.o);
  CHECK(std::fabs(t1.fe - t0.fe) <= 1e-14 * t0.fe);
  CHECK(norm(t1.p - t0.p) <= 1e-14 * t0.p_scale);
  std::printf(
      "[starform] coalescence box, %zu clouds, one step: %ld mergers, %ld above m_J -> %ld stars, "
      "%.4g Msun\n",
      n, col.mergers, unstable, stars, formed);
}
