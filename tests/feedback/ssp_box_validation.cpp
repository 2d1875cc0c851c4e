// The SSP box (setups/ssp_box.yaml, smaller: 8^3 gas, to 60 Myr) run end to end with
// feedback.model ssp: the gas [O/Fe] is that of the population's new metals (the SSP table), the
// star lost exactly its returned mass, mass and metals are conserved, energy.csv carries the
// E_feedback account and E_total stays constant to the run's SPH accuracy, and the snapshot header
// flags feedback and metals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "feedback/ssp_table.hpp"
#include "io/snapshot.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "sfr_feedback_check.hpp"

using namespace mpsph;

namespace {

const char* kBox = R"(
run: {t_end: 46.035, output_dir: unused, snapshot_times: [46.035], diagnostics_every: 1,
      snapshot_fields: [OxygenMassFraction, IronMassFraction]}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: ssp_box, n_side: 8, box_size: 2400, n_H: 0.1, temperature: 1.0e4, fe_h: -99,
        star_mass_msun: 1.0e4, star_age_myr: 0, star_metallicity: 0.02}
eos: {type: adiabatic}
gravity: {enabled: false}
timestep: {scheme: block, dt_max: 10.23, use_velocity: false}
feedback: {model: ssp}
)";

}  // namespace

TEST_CASE("SSP box: [O/Fe] of the gas follows the population, energy balances with E_feedback",
          "[feedback][validation]") {
  const std::string dir = test::scratch_dir("ssp_box");
  Simulation sim(test::run_options(dir, kBox, {}, std::string("cpu")));
  REQUIRE(sim.run());
  const ParticleStore& s = sim.particles();
  double o = 0, fe = 0, m_gas = 0, m_star = 0, m0_star = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] == kGas) {
      o += s.mass[i] * s.z_o[i];
      fe += s.mass[i] * s.z_fe[i];
      m_gas += s.mass[i];
    } else {
      m_star += s.mass[i];
      m0_star += s.initial_mass[i];
    }
  }
  const SspTable table{SspModel{}};
  const double age_yr = sim.time() * cgs::pc / 1e5 / cgs::year;
  const SspRelease r = ssp_table_cumulative(table.view(), age_yr, 0.02);
  std::printf("SSP box at %.2f Myr: gas O/Fe = %.8g, SSP table %.8g; star mass %.8g of %.8g\n",
              age_yr / 1e6, o / fe, r.q[kSspOxygen] / r.q[kSspIron], m_star, m0_star);
  // Metal-free gas and star (1e-99 scaled solar): all O and Fe came from the population.
  CHECK(o / fe == Approx(r.q[kSspOxygen] / r.q[kSspIron]).epsilon(1e-9));
  CHECK(o == Approx(m0_star * r.q[kSspOxygen]).epsilon(1e-9));
  CHECK(m_star == Approx(m0_star * (1.0 - r.q[kSspMassReturned])).epsilon(1e-12));
  CHECK(r.q[kSspNSnIa] > 0.0);  // SN Ia have started (8 Msun lifetime 38 Myr)
  const std::vector<test::EnergyRow> rows = test::read_energy(dir);
  REQUIRE(rows.size() >= 5);  // one per 10.23 Myr segment
  // E_feedback is the SN energy injected so far: 1e51 erg x N_SN x 1e4 Msun (code energy Msun
  // (km/s)^2), minus sign.
  std::ifstream f(dir + "/energy.csv");
  std::string line, header;
  while (std::getline(f, line))
    if (line.rfind("step", 0) == 0) header = line;
  CHECK(header.find("E_feedback") != std::string::npos);
  const double e_sn = 1e51 / (cgs::Msun * 1e10) * 1e4 * (r.q[kSspNSnII] + r.q[kSspNSnIa]);
  const double e_total0 = rows.front().etot;
  double worst = 0.0;
  for (const test::EnergyRow& row : rows) worst = std::max(worst, std::fabs(row.rel));
  std::printf("SSP box: SN energy %.6g code (%.3g of E_total), largest |E_total error| %.3g\n",
              e_sn, e_sn / e_total0, worst);
  // Measured (2026-11-26, CPU): 1.66e-3 here (SN energy a third of E_total), falling as the
  // Courant factor (9.0e-4 at 0.05, 4.7e-4 at 0.025), 5.3e-5 under the global scheme and 1.6e-4
  // with limiter_factor 1: the error of neighbours on different rungs (docs/feedback.md); the stage
  // itself balances to round-off (feedback_test.cpp). The bound is 3x the measured value.
  CHECK(worst < 5e-3);
  SnapshotMeta meta;
  read_snapshot(dir + "/snapshot_0001.h5", &meta);
  CHECK(meta.flag_feedback);
  CHECK(meta.flag_metals);
}

TEST_CASE(
    "sfr.csv reports the feedback energy injected: energy.csv's account, the stars' SSP energy",
    "[feedback][starform][validation]") {
  const std::string da = test::scratch_dir("ssp_box_sfr_whole");
  const std::string db = test::scratch_dir("ssp_box_sfr_restart");
  {
    Simulation sim(test::run_options(da, test::sfr_feedback_box(), {}, std::string("cpu")));
    REQUIRE(sim.run());
    // Measured (CPU): 29 stars formed, 26 of them with SNe by 20 Myr.
    CHECK(test::check_sfr_feedback_column(da, sim.particles(), sim.time()) >= 10);
  }
  // A run continued from a checkpoint writes the same sfr.csv (rows after it trimmed, the account
  // restored).
  {
    Simulation sim(
        test::run_options(db, test::sfr_feedback_box(), {"run.max_steps=3"}, std::string("cpu")));
    sim.run();
  }
  {
    Simulation sim(test::restart_options(db, std::string("cpu")));
    REQUIRE(sim.run());
  }
  CHECK(test::read_text(da + "/sfr.csv") == test::read_text(db + "/sfr.csv"));
}
