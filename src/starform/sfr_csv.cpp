#include "starform/sfr_csv.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

namespace {

const char* const kColumns =
    "time,time_Myr,SFR_Msun_per_yr,M_formed_Msun,E_feedback_injected,E_feedback_injected_erg\n";

}  // namespace

std::string sfr_csv_header(const std::string& time_unit, const std::string& energy_unit) {
  return "# mpsph star formation (type-4 stars formed in the run), one row per energy.csv row\n"
         "# units: time in code time (" +
         time_unit +
         ") and in Myr; SFR_Msun_per_yr: mean star formation rate since the previous row in "
         "Msun/yr (0 on the first row of a run); M_formed_Msun: stellar mass formed since the "
         "start in Msun (initial masses of the type-4 stars, including any in the initial "
         "conditions, and pending star requests); E_feedback_injected: SN energy the stars' "
         "feedback (feedback.model) injected into the gas since the start, in code energy (" +
         energy_unit +
         "; minus energy.csv's E_feedback of the same row; 0 without feedback), and in erg "
         "(E_feedback_injected_erg)\n" +
         kColumns;
}

void SfrCsv::open(const std::string& dir, double yr_per_time, double msun_per_mass,
                  double erg_per_energy, double time, bool restart) {
  yr_per_time_ = yr_per_time;
  msun_per_mass_ = msun_per_mass;
  erg_per_energy_ = erg_per_energy;
  char unit[96], energy_unit[96];
  std::snprintf(unit, sizeof unit, "1 code time = %.6e yr", yr_per_time);
  std::snprintf(energy_unit, sizeof energy_unit, "1 code energy = %.6e erg", erg_per_energy);
  std::string text;
  file_.open(dir + "/sfr.csv", sfr_csv_header(unit, energy_unit), time, restart, &text);
  // A restart: the kept rows must have this run's columns (a restart appends rows of this kind);
  // the last kept row is the previous one of the next SFR.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, 5, "time,") == 0 && line + "\n" != kColumns) {
      file_.close();
      throw Error("'" + file_.path() + "' has the columns '" + line + "', this run writes '" +
                  std::string(kColumns, std::strlen(kColumns) - 1) +
                  "' (a file of an older mpsph): move it away to restart");
    }
    if (line.empty() || line[0] == '#' || line.compare(0, 5, "time,") == 0) continue;
    double t = 0, t_myr = 0, sfr = 0, m = 0;
    if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &t, &t_myr, &sfr, &m) == 4) {
      have_previous_ = true;
      previous_time_ = t;
      previous_mass_ = m;
    }
  }
}

void SfrCsv::write(double time, double m_formed, double e_feedback) {
  const double m = m_formed * msun_per_mass_;
  double sfr = 0.0;
  if (have_previous_ && time > previous_time_)
    sfr = (m - previous_mass_) / ((time - previous_time_) * yr_per_time_);
  std::fprintf(file_.file(), "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", time,
               time * yr_per_time_ * 1e-6, sfr, m, e_feedback, e_feedback * erg_per_energy_);
  file_.end_rows();
  have_previous_ = true;
  previous_time_ = time;
  previous_mass_ = m;
}

}  // namespace mpsph
