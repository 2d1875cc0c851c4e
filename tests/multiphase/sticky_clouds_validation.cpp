// The sticky-cloud box (setups/sticky_clouds.yaml at CI size): 400 clouds in a periodic 150 pc box
// for 100 steps, no gas and no gravity, so the collisions are the only physics. Mass, momentum and
// metal masses are conserved to round-off (1e-12 relative: each collision rounds a few products
// per cloud, ~1e-16, and a few thousand collisions add up to far less), and E_total, which
// includes the energy radiated in collisions, stays constant to the same level.
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "multiphase/conserved_totals.hpp"
#include "multiphase/energy_column.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

const char* kConfig = R"(
run: {t_end: 10.0}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: sticky_clouds, n_clouds: 400, box_size: 150, cloud_mass: 1.0e4, sigma_v: 5, seed: 3}
gravity: {enabled: false}
timestep: {scheme: global, dt_max: 0.1}
multiphase: {model: sticky_clouds, restitution: 0.7}
)";

using Totals = test::ConservedTotals;

// Only the clouds (the box has no other particles that count).
Totals totals(const ParticleStore& s) {
  return test::conserved_totals(s, kCloud);
}

}  // namespace

TEST_CASE("sticky-cloud box: mass, momentum and metals conserved, E_total + radiated constant",
          "[multiphase][validation]") {
  const std::string dir = test::scratch_dir("sticky_clouds_box");
  Simulation sim(test::run_options(dir, kConfig));
  const Totals t0 = totals(sim.particles());
  REQUIRE(t0.clouds == 400);
  sim.run();
  const Totals t1 = totals(sim.particles());
  INFO("clouds " << t0.clouds << " -> " << t1.clouds);
  CHECK(t1.clouds < t0.clouds - 40);  // clouds did coalesce (measured: 400 -> 326)
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-12 * t0.mass);
  CHECK(std::fabs(t1.fe - t0.fe) <= 1e-12 * t0.fe);
  CHECK(std::fabs(t1.o - t0.o) <= 1e-12 * t0.o);
  CHECK(norm(t1.p - t0.p) <= 1e-12 * t0.p_scale);

  const std::vector<test::EnergyRow> rows = test::read_energy(dir);
  REQUIRE(rows.size() == 101);
  const std::vector<double> radiated = test::energy_column(dir, "E_collisions");
  const std::vector<double> m_cold = test::energy_column(dir, "M_cold");
  REQUIRE(radiated.size() == rows.size());
  // The collisions took a good part of the kinetic energy: the check below is not empty.
  CHECK(radiated.back() > 0.3 * rows.front().ek);
  double worst = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    worst = std::max(worst, std::fabs(rows[k].etot - rows.front().etot) / rows.front().etot);
    CHECK(std::fabs(rows[k].ek + radiated[k] - rows[k].etot) <= 1e-14 * rows[k].etot);
    CHECK(std::fabs(m_cold[k] - t0.mass) <= 1e-12 * t0.mass);
  }
  INFO("largest |E_total - E_total(0)| / E_total(0) = " << worst);
  CHECK(worst <= 1e-12);
  std::printf(
      "sticky-cloud box: %zu -> %zu clouds, E_collisions/E_kin(0) = %.4f, |dE_total|/E = %.2e\n",
      t0.clouds, t1.clouds, radiated.back() / rows.front().ek, worst);
}

TEST_CASE("sticky-cloud box with viscosity among the clouds: conservation and dissipation",
          "[multiphase][validation]") {
  const std::string dir = test::scratch_dir("sticky_clouds_viscosity");
  Simulation sim(test::run_options(
      dir, kConfig,
      {"multiphase.cloud_interaction=viscosity", "multiphase.viscosity_neighbours=16",
       "multiphase.sigma_c_kms=2", "run.t_end=5.0"}));
  const Totals t0 = totals(sim.particles());
  sim.run();
  const Totals t1 = totals(sim.particles());
  CHECK(t1.clouds == t0.clouds);
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-12 * t0.mass);
  // Equal and opposite pair forces, summed per cloud in double: round-off of the sums.
  CHECK(norm(t1.p - t0.p) <= 1e-12 * t0.p_scale);
  const std::vector<test::EnergyRow> rows = test::read_energy(dir);
  const std::vector<double> dissipated = test::energy_column(dir, "E_cloud_viscosity");
  REQUIRE(dissipated.size() == rows.size());
  CHECK(dissipated.back() > 0.05 * rows.front().ek);
  double worst = 0;
  for (const auto& r : rows)
    worst = std::max(worst, std::fabs(r.etot - rows.front().etot) / rows.front().etot);
  std::printf("cloud viscosity box: E_cloud_viscosity/E_kin(0) = %.4f, |dE_total|/E = %.2e\n",
              dissipated.back() / rows.front().ek, worst);
  // The kicks' account is exact (no other force acts here): round-off only.
  CHECK(worst <= 1e-12);
}

TEST_CASE("sticky-cloud box continues bit for bit from a checkpoint", "[multiphase][validation]") {
  // 20 steps, checkpoint, 20 more (with the removed clouds and the energy accounts of the first
  // part in the checkpoint) against 40 steps in one go.
  const std::string da = test::scratch_dir("sticky_clouds_whole");
  const std::string db = test::scratch_dir("sticky_clouds_restart");
  ParticleStore whole, resumed;
  {
    Simulation sim(test::run_options(da, kConfig, {"run.t_end=4.0"}));
    sim.run();
    whole = sim.particles();
  }
  {
    Simulation sim(test::run_options(db, kConfig, {"run.t_end=4.0", "run.max_steps=20"}));
    sim.run();
  }
  {
    Simulation sim(test::restart_options(db));
    sim.run();
    resumed = sim.particles();
  }
  REQUIRE(whole.size() == resumed.size());
  REQUIRE(whole.size() < 400);  // clouds merged in both parts
  long differ = 0;
  for (std::size_t i = 0; i < whole.size(); ++i)
    differ += whole.id[i] != resumed.id[i] || whole.mass[i] != resumed.mass[i] ||
              whole.pos[i].x != resumed.pos[i].x || whole.vel[i].y != resumed.vel[i].y ||
              whole.z_fe[i] != resumed.z_fe[i];
  CHECK(differ == 0);
  const auto ea = test::energy_column(da, "E_collisions"),
             eb = test::energy_column(db, "E_collisions");
  REQUIRE(ea.size() == 41);
  REQUIRE(eb.size() == ea.size());
  CHECK(ea.back() == eb.back());
}
