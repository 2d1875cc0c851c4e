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
#include "multiphase/energy_column.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"

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

// Column `name` of the data rows of a module CSV (comment lines '#', the column line "time,...").
std::vector<double> csv_column(const std::string& path, const std::string& name) {
  std::ifstream f(path);
  std::string line;
  long col = -1;
  std::vector<double> out;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (line.rfind("time,", 0) == 0) {
      for (std::size_t k = 0; k < cells.size(); ++k)
        if (cells[k] == name) col = long(k);
      continue;
    }
    if (col >= 0) out.push_back(std::stod(cells.at(std::size_t(col))));
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

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
  // Measured (2026-11-25, CPU): 1.67e-3 here (SN energy a third of E_total), falling as the
  // Courant factor (9.1e-4 at 0.05, 4.7e-4 at 0.025: first order, from waking heated receivers in
  // the middle of their steps, docs/feedback.md), 5.0e-5 under the global scheme; the stage itself
  // balances to round-off (feedback_test.cpp). The bound is 3x the measured value.
  CHECK(worst < 5e-3);
  SnapshotMeta meta;
  read_snapshot(dir + "/snapshot_0001.h5", &meta);
  CHECK(meta.flag_feedback);
  CHECK(meta.flag_metals);
}

TEST_CASE(
    "sfr.csv reports the feedback energy injected: energy.csv's account, the stars' SSP energy",
    "[feedback][starform][validation]") {
  // The SSP box with star formation (katz) in denser gas, so that gas compressed by the SN of the
  // initial population may form stars, whose populations feed back in turn; global steps, so
  // every star's release is up to the time of every row.
  const std::vector<std::string> dense = {"setup.n_H=10", "starform.model=katz", "run.t_end=20",
                                          "run.threads=1", "timestep.scheme=global"};
  const std::string da = test::scratch_dir("ssp_box_sfr_whole");
  const std::string db = test::scratch_dir("ssp_box_sfr_restart");
  ParticleStore s;
  double t_end = 0;
  {
    Simulation sim(test::run_options(da, kBox, dense, std::string("cpu")));
    REQUIRE(sim.run());
    s = sim.particles();
    t_end = sim.time();
  }
  const std::vector<double> t_sfr = csv_column(da + "/sfr.csv", "time");
  const std::vector<double> e_sfr = csv_column(da + "/sfr.csv", "E_feedback_injected");
  const std::vector<double> erg_sfr = csv_column(da + "/sfr.csv", "E_feedback_injected_erg");
  const std::vector<double> t_energy = test::energy_column(da, "time");
  const std::vector<double> e_energy = test::energy_column(da, "E_feedback");
  REQUIRE(t_sfr.size() >= 5);
  REQUIRE(t_sfr.size() == t_energy.size());
  REQUIRE(e_sfr.size() == t_sfr.size());
  REQUIRE(erg_sfr.size() == t_sfr.size());
  long differ = 0;
  for (std::size_t k = 0; k < t_sfr.size(); ++k) {
    // The same account of the same row, printed with 17 digits: equal exactly.
    differ += t_sfr[k] != t_energy[k] || e_sfr[k] != -e_energy[k];
    // Code energy Msun (km/s)^2 = 1.98892e43 erg (cgs::Msun x 1e10).
    CHECK(erg_sfr[k] == Approx(e_sfr[k] * cgs::Msun * 1e10).epsilon(1e-15));
  }
  CHECK(differ == 0);
  CHECK(std::is_sorted(e_sfr.begin(), e_sfr.end()));
  // The last row against the stars' populations: the SN energy of each up to its age now,
  // 1e51 erg x (N_SNII + N_SNIa) per Msun x its initial mass.
  const SspTable table{SspModel{}};
  const double yr_per_time = cgs::pc / 1e5 / cgs::year;
  const double e_per_sn = 1e51 / (cgs::Msun * 1e10);
  double e_stars = 0;
  long formed = 0, exploding = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] != kOldStar && s.type[i] != kNewStar) continue;
    formed += s.type[i] == kNewStar;
    const SspRelease r =
        ssp_table_cumulative(table.view(), (t_end - s.birth_time[i]) * yr_per_time, s.birth_z[i]);
    const double e = e_per_sn * s.initial_mass[i] * (r.q[kSspNSnII] + r.q[kSspNSnIa]);
    exploding += s.type[i] == kNewStar && e > 0;
    e_stars += e;
  }
  std::printf(
      "sfr.csv feedback energy: %zu rows, last %.10g code = %.6g erg; the stars' SSP energy %.10g "
      "(%ld stars formed in the run, %ld of them with SNe)\n",
      e_sfr.size(), e_sfr.back(), erg_sfr.back(), e_stars, formed, exploding);
  CHECK(t_sfr.back() == t_end);
  // Each step injects M0 [R(age) - R(age - dt)]: the sum telescopes to M0 R(age) up to the
  // round-off of ~100 steps' differences.
  CHECK(e_sfr.back() == Approx(e_stars).epsilon(1e-12));
  CHECK(e_sfr.back() > 0);
  // A run continued from a checkpoint writes the same sfr.csv (rows after it trimmed, the account
  // restored).
  {
    std::vector<std::string> partial = dense;
    partial.push_back("run.max_steps=3");
    Simulation sim(test::run_options(db, kBox, partial, std::string("cpu")));
    sim.run();
  }
  {
    Simulation sim(test::restart_options(db, std::string("cpu")));
    REQUIRE(sim.run());
  }
  CHECK(read_text(da + "/sfr.csv") == read_text(db + "/sfr.csv"));
}
