// The multiphase box (setups/multiphase_box.yaml at CI size): hot gas with warm clumps, cooling,
// cloud formation, evaporation and drag, 100 steps on the CPU. Mass, linear momentum and O and Fe
// mass are conserved to 1e-12 relative: every exchange moves the same products between a cloud
// and its receivers (round-off per share, ~1e-16, over a few 1e5 shares). E_total with the
// modules' accounts (E_radiated, E_cloud_formation, E_evaporation, E_drag, E_drag_heat) stays
// within the level of the same box without the cold phase (the SPH and cooling integration
// error, measured by the second run), and E_drag_heat = -E_drag on every row.
#include <cmath>
#include <cstdio>
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
run: {t_end: 100.0, max_steps: 100, diagnostics_every: 1}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: multiphase_box, n_side: 10, box_size: 160, n_H: 0.1, temperature: 3.0e6,
        warm_temperature: 8000, n_clumps: 6, clump_radius: 25, seed: 2}
gravity: {enabled: false}
cooling: {model: sd93, metals: particles, floor_K: 100}
timestep: {scheme: global}
)";
const std::vector<std::string> kColdPhase = {"multiphase.model=sticky_clouds",
                                             "multiphase.evaporation=cowie_mckee",
                                             "multiphase.drag_coefficient=1.0"};

using Totals = test::ConservedTotals;

Totals totals(const ParticleStore& s) {
  return test::conserved_totals(s);
}

double worst_energy_error(const std::string& dir) {
  double worst = 0;
  for (const auto& r : test::read_energy(dir)) worst = std::max(worst, std::fabs(r.rel));
  return worst;
}

}  // namespace

TEST_CASE(
    "multiphase box: mass, momentum and metals conserved through formation, evaporation "
    "and drag",
    "[multiphase][validation]") {
  const std::string dir = test::scratch_dir("multiphase_box");
  Simulation sim(test::run_options(dir, kConfig, kColdPhase));
  const Totals t0 = totals(sim.particles());
  REQUIRE(t0.clouds == 0);
  sim.run();
  const Totals t1 = totals(sim.particles());
  INFO("gas " << t0.gas << " -> " << t1.gas << ", clouds " << t0.clouds << " -> " << t1.clouds);
  CHECK(t1.clouds > 0);
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-12 * t0.mass);
  CHECK(std::fabs(t1.fe - t0.fe) <= 1e-12 * t0.fe);
  CHECK(std::fabs(t1.o - t0.o) <= 1e-12 * t0.o);
  CHECK(norm(t1.p - t0.p) <= 1e-12 * t1.p_scale);

  const auto rows = test::read_energy(dir);
  REQUIRE(rows.size() == 101);
  const auto evap = test::energy_column(dir, "E_evaporation");
  const auto drag = test::energy_column(dir, "E_drag");
  const auto drag_heat = test::energy_column(dir, "E_drag_heat");
  const auto m_cold = test::energy_column(dir, "M_cold");
  const auto m_hot = test::energy_column(dir, "M_hot");
  const auto m_warm = test::energy_column(dir, "M_warm");
  REQUIRE(evap.size() == rows.size());
  REQUIRE(drag.size() == rows.size());
  // The physics happened: clouds formed, then lost mass to the hot gas, and the drag worked.
  double peak = 0;
  for (double m : m_cold) peak = std::max(peak, m);
  CHECK(peak > 0.02 * t0.mass);
  CHECK(m_cold.back() < 0.99 * peak);
  CHECK(evap.back() < 0.0);
  CHECK(drag.back() > 0.0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CHECK(drag_heat[k] == -drag[k]);
    CHECK(std::fabs(m_hot[k] + m_warm[k] + m_cold[k] - t0.mass) <= 1e-12 * t0.mass);
  }
  // Energy: the same box with formation only sets the level of the SPH and cooling error.
  const std::string ref = test::scratch_dir("multiphase_box_reference");
  {
    std::vector<std::string> o = kColdPhase;
    o.push_back("multiphase.evaporation=none");
    o.push_back("multiphase.drag_coefficient=0");
    Simulation r(test::run_options(ref, kConfig, o));
    r.run();
  }
  const double worst = worst_energy_error(dir), level = worst_energy_error(ref);
  std::printf(
      "multiphase box (1000 gas, 100 steps): clouds %zu at the end, peak M_cold/M = %.4f, "
      "E_evaporation/E_total = %.3g, E_drag = %.4g, |P|/sum m|v| = %.2e, max |rel_error| %.2e "
      "(formation only %.2e)\n",
      t1.clouds, peak / t0.mass, evap.back() / rows.front().etot, drag.back(),
      norm(t1.p - t0.p) / t1.p_scale, worst, level);
  CHECK(worst <= 1.5 * level);
}

TEST_CASE("multiphase box continues bit for bit from a checkpoint", "[multiphase][validation]") {
  // 30 steps, checkpoint, 30 more (clouds formed, evaporating, some turned back into gas) against
  // 60 in one go: the exchange keeps no state beyond the particles and its energy accounts.
  const std::string da = test::scratch_dir("multiphase_box_whole");
  const std::string db = test::scratch_dir("multiphase_box_restart");
  std::vector<std::string> o = kColdPhase;
  o.push_back("setup.temperature=1e7");
  ParticleStore whole, resumed;
  {
    std::vector<std::string> all = o;
    all.push_back("run.max_steps=60");
    Simulation sim(test::run_options(da, kConfig, all));
    sim.run();
    whole = sim.particles();
  }
  {
    std::vector<std::string> first = o;
    first.push_back("run.max_steps=30");
    Simulation sim(test::run_options(db, kConfig, first));
    sim.run();
  }
  {
    RunOptions r = test::restart_options(db);
    r.overrides = {"run.max_steps=30"};  // steps of this run: 30 more
    Simulation sim(r);
    sim.run();
    resumed = sim.particles();
  }
  REQUIRE(whole.size() == resumed.size());
  long differ = 0, clouds = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    clouds += whole.type[i] == kCloud;
    differ += whole.id[i] != resumed.id[i] || whole.type[i] != resumed.type[i] ||
              whole.mass[i] != resumed.mass[i] || whole.pos[i].x != resumed.pos[i].x ||
              whole.vel[i].y != resumed.vel[i].y || whole.u[i] != resumed.u[i] ||
              whole.z_fe[i] != resumed.z_fe[i];
  }
  CHECK(clouds > 0);
  CHECK(differ == 0);
  for (const char* col : {"E_evaporation", "E_drag"}) {
    const auto ea = test::energy_column(da, col), eb = test::energy_column(db, col);
    REQUIRE(ea.size() == 61);
    REQUIRE(eb.size() == ea.size());
    CHECK(ea.back() == eb.back());
    CHECK(ea.back() != 0.0);
  }
}
