// The feedback column of sfr.csv in a whole run (tests/feedback/ssp_box_validation.cpp on the CPU,
// feedback_gpu_test.cpp on the GPU): the SSP box with katz star formation in denser gas, and the
// checks of its sfr.csv against energy.csv and against the stars' populations.
#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/particle_store.hpp"
#include "feedback/ssp_table.hpp"
#include "multiphase/energy_column.hpp"

namespace mpsph::test {

// The SSP box of ssp_box_validation.cpp (1e4 Msun born at t = 0 in 8^3 gas, 2400 pc, 1e4 K) at
// n_H = 10 cm^-3 with katz star formation: gas compressed by the population's SNe forms stars
// (whole particles of ~9e6 Msun), whose populations feed back in turn. Global steps, so every
// star's release is up to the time of every row; 20 Myr.
inline const char* sfr_feedback_box() {
  return R"(
run: {t_end: 20, output_dir: unused, diagnostics_every: 1, threads: 1}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: ssp_box, n_side: 8, box_size: 2400, n_H: 10, temperature: 1.0e4, fe_h: -99,
        star_mass_msun: 1.0e4, star_age_myr: 0, star_metallicity: 0.02}
eos: {type: adiabatic}
gravity: {enabled: false}
timestep: {scheme: global, dt_max: 10.23, use_velocity: false}
starform: {model: katz}
feedback: {model: ssp}
)";
}

// The run in `dir` (units pc, Msun, km/s; default SSP model) ended at `t_end` with the particles
// `s`: sfr.csv's E_feedback_injected is minus energy.csv's E_feedback at every row (the same
// account, printed with 17 digits: equal exactly), its erg column the conversion, and its last
// row the SN energy of the stars' populations up to their ages, 1e51 erg x M0 (N_SNII + N_SNIa)
// (age, Z), to 1e-12: each step injects M0 [N(age) - N(age - dt)], a sum that telescopes up to the
// round-off of its ~50 differences. Returns the number of stars formed in the run.
inline long check_sfr_feedback_column(const std::string& dir, const ParticleStore& s,
                                      double t_end) {
  const std::vector<double> t_sfr = csv_column(dir + "/sfr.csv", "time");
  const std::vector<double> e_sfr = csv_column(dir + "/sfr.csv", "E_feedback_injected");
  const std::vector<double> erg_sfr = csv_column(dir + "/sfr.csv", "E_feedback_injected_erg");
  const std::vector<double> t_energy = energy_column(dir, "time");
  const std::vector<double> e_energy = energy_column(dir, "E_feedback");
  REQUIRE(t_sfr.size() >= 5);
  REQUIRE(t_sfr.size() == t_energy.size());
  REQUIRE(e_sfr.size() == t_sfr.size());
  REQUIRE(erg_sfr.size() == t_sfr.size());
  long differ = 0;
  for (std::size_t k = 0; k < t_sfr.size(); ++k) {
    differ += t_sfr[k] != t_energy[k] || e_sfr[k] != -e_energy[k];
    // Code energy Msun (km/s)^2 = cgs::Msun x 1e10 erg.
    CHECK(erg_sfr[k] == Approx(e_sfr[k] * cgs::Msun * 1e10).epsilon(1e-15));
  }
  CHECK(differ == 0);
  CHECK(std::is_sorted(e_sfr.begin(), e_sfr.end()));
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
  CHECK(e_sfr.back() == Approx(e_stars).epsilon(1e-12));
  CHECK(e_sfr.back() > 0);
  return formed;
}

}  // namespace mpsph::test
