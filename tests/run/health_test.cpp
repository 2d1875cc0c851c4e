// The per-step health check (run/health.hpp): each kind of bad value is found and named by field
// and stage, the first offending particle is the smallest index, and a run that goes bad stops with
// HealthError, a diagnosis naming the stage and the particle, and a diagnostic snapshot, without
// overwriting a checkpoint.
#include "run/health.hpp"

#include <cmath>
#include <filesystem>
#include <limits>

#include "catch.hpp"
#include "run/health_kern.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

// Two healthy particles: a gas particle and a dark-matter particle.
ParticleStore healthy() {
  ParticleStore s;
  s.resize(2);
  for (std::size_t i = 0; i < 2; ++i) {
    s.id[i] = 100 + i;
    s.mass[i] = 1.0;
    s.pos[i] = {double(i), 0, 0};
  }
  s.type[0] = kGas;
  s.type[1] = kDarkMatter;
  s.u[0] = 1.0;
  s.h[0] = 0.1f;
  s.rho[0] = 1.0f;
  s.pressure[0] = 0.6f;
  s.csound[0] = 1.0f;
  return s;
}

}  // namespace

TEST_CASE("particle_health flags each non-finite or impossible field", "[run][health]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  ParticleStore s = healthy();
  CHECK(particle_health(s.view(), 0) == 0);
  CHECK(particle_health(s.view(), 1) == 0);
  CHECK(check_health(s.view()).ok());
  struct Case {
    const char* what;
    void (*spoil)(ParticleStore&);
    uint32_t bit;
  };
  static double g_nan, g_inf;
  g_nan = nan, g_inf = inf;
  const Case cases[] = {
      {"h = 0", [](ParticleStore& p) { p.h[0] = 0.0f; }, kBadH},
      {"h collapsed", [](ParticleStore& p) { p.h[0] = 1e-39f; }, kBadH},
      {"rho = 0", [](ParticleStore& p) { p.rho[0] = 0.0f; }, kBadRho},
      {"div v NaN", [](ParticleStore& p) { p.divv[0] = float(g_nan); }, kBadDivV},
      {"P < 0", [](ParticleStore& p) { p.pressure[0] = -1.0f; }, kBadPressure},
      {"du/dt inf", [](ParticleStore& p) { p.dudt[0] = g_inf; }, kBadDuDt},
      {"gravity NaN", [](ParticleStore& p) { p.acc_grav[1].y = g_nan; }, kBadGravity},
      {"potential inf", [](ParticleStore& p) { p.pot[1] = -g_inf; }, kBadGravity},
      {"acc NaN", [](ParticleStore& p) { p.acc[1].z = g_nan; }, kBadAcc},
      {"u < 0", [](ParticleStore& p) { p.u[0] = -1e-3; }, kBadU},
      {"mass 0", [](ParticleStore& p) { p.mass[1] = 0.0; }, kBadMass},
      {"mass NaN", [](ParticleStore& p) { p.mass[0] = g_nan; }, kBadMass},
      {"velocity inf", [](ParticleStore& p) { p.vel[1].x = g_inf; }, kBadVel},
      {"position NaN", [](ParticleStore& p) { p.pos[0].x = g_nan; }, kBadPos},
      {"Fe fraction NaN", [](ParticleStore& p) { p.z_fe[1] = g_nan; }, kBadMetals},
      {"O fraction < 0", [](ParticleStore& p) { p.z_o[0] = -1e-12; }, kBadMetals},
      {"X_H > 1", [](ParticleStore& p) { p.x_h[0] = 1.5; }, kBadMetals},
      {"star birth time inf",
       [](ParticleStore& p) {
         p.type[1] = kNewStar;
         p.birth_time[1] = g_inf;
       },
       kBadStar},
      {"star initial mass < 0",
       [](ParticleStore& p) {
         p.type[1] = kOldStar;
         p.initial_mass[1] = -1.0;
       },
       kBadStar},
      {"sink spin NaN",
       [](ParticleStore& p) {
         p.type[1] = kSink;
         p.spin[1].z = g_nan;
       },
       kBadSpin},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    ParticleStore t = healthy();
    c.spoil(t);
    const HealthReport r = check_health(t.view());
    CHECK(r.bits == c.bit);
    CHECK(r.first < 2);
    CHECK(particle_health(t.view(), r.first) == c.bit);
  }
  // A particle removed since the last order stage has mass 0 and is not checked.
  ParticleStore t = healthy();
  t.mass[1] = 0.0;
  t.type[1] = kRemoved;
  CHECK(check_health(t.view()).ok());
  // Gas-only fields are not checked for other types, nor star and sink fields for others.
  t = healthy();
  t.rho[1] = 0.0f;
  t.u[1] = -1.0;
  t.initial_mass[1] = -1.0;
  t.spin[1].x = nan;
  CHECK(check_health(t.view()).ok());
  // Limits are valid: metal fractions 0 and 1, a star without an SSP (initial mass 0).
  t = healthy();
  t.x_h[0] = 1.0;
  t.z_o[1] = 0.0;
  t.type[1] = kNewStar;
  t.initial_mass[1] = 0.0;
  CHECK(check_health(t.view()).ok());
}

TEST_CASE("the health scan reports the smallest bad index and names the earliest stage",
          "[run][health]") {
  ParticleStore s;
  s.resize(1000);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.id[i] = i + 1;
    s.mass[i] = 1.0;
    s.type[i] = kDarkMatter;
    s.pos[i] = {1e-3 * double(i), 0, 0};
  }
  s.vel[700].x = std::numeric_limits<double>::quiet_NaN();
  s.acc_grav[321].x = std::numeric_limits<double>::infinity();
  s.acc[321].x = std::numeric_limits<double>::infinity();
  const HealthReport r = check_health(s.view());
  CHECK(r.first == 321);
  CHECK(r.bits == (kBadGravity | kBadAcc | kBadVel));
  // Particle 321: gravity comes before the end force in the step.
  CHECK(health_field_name(particle_health(s.view(), 321)) ==
        "gravity acceleration / potential (gravity)");
  const std::string d = describe_particle_health(s, 321, 4);
  INFO(d);
  CHECK(d.find("id 322") != std::string::npos);
  // Its nearest particles are ids 321 and 323 (at 1e-3), listed.
  CHECK(d.find("id 321 ") != std::string::npos);
  CHECK(d.find("id 323 ") != std::string::npos);
  CHECK(d.find("4 nearest") != std::string::npos);
}

TEST_CASE("a run that goes bad stops with a diagnosis and a diagnostic snapshot", "[run][health]") {
  // A Plummer sphere of 1e40 mass units: a valid input (finite velocities ~1e19) whose gravity
  // overflows the float pair arithmetic (DESIGN.md section 4) in the first force evaluation.
  const std::string dir = test::scratch_dir("health_plummer_cpu");
  const std::string yaml = R"(
run: {t_end: 1.0}
setup: {type: plummer, n_particles: 500, mass: 1.0e40}
gravity: {softening: 0.01}
)";
  std::string msg;
  try {
    Simulation sim(test::run_options(dir, yaml, {}, std::string("cpu")));
    sim.run();
  } catch (const HealthError& e) {
    msg = e.what();
  }
  INFO(msg);
  REQUIRE(!msg.empty());
  CHECK(msg.find("step 0") != std::string::npos);
  CHECK(msg.find("(gravity)") != std::string::npos);
  CHECK(msg.find("first offending particle id") != std::string::npos);
  CHECK(msg.find("nearest particles") != std::string::npos);
  CHECK(std::filesystem::exists(dir + "/diagnostic_step000000.h5"));
  CHECK(!std::filesystem::exists(dir + "/checkpoint.h5"));
  CHECK(!std::filesystem::exists(dir + "/snapshot_0000.h5"));
}
