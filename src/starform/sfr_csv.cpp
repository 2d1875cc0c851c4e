#include "starform/sfr_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

std::string sfr_csv_header(const std::string& time_unit) {
  return "# mpsph star formation (type-4 stars formed in the run), one row per energy.csv row\n"
         "# units: time in code time (" +
         time_unit +
         ") and in Myr; SFR_Msun_per_yr: mean star formation rate since the previous row in "
         "Msun/yr (0 on the first row of a run); M_formed_Msun: stellar mass formed since the "
         "start in Msun (initial masses of the type-4 stars, including any in the initial "
         "conditions, and pending star requests)\n"
         "time,time_Myr,SFR_Msun_per_yr,M_formed_Msun\n";
}

SfrCsv::~SfrCsv() {
  if (f_) std::fclose(f_);
}

void SfrCsv::open(const std::string& dir, double yr_per_time, double msun_per_mass, double time,
                  bool restart) {
  path_ = dir + "/sfr.csv";
  yr_per_time_ = yr_per_time;
  msun_per_mass_ = msun_per_mass;
  char unit[96];
  std::snprintf(unit, sizeof unit, "1 code time = %.6e yr", yr_per_time);
  std::string text;
  f_ = open_module_csv(path_, sfr_csv_header(unit), time, restart, &text);
  // A restart: the last kept row is the previous one of the next SFR.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line.compare(0, 5, "time,") == 0) continue;
    double t = 0, t_myr = 0, sfr = 0, m = 0;
    if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &t, &t_myr, &sfr, &m) == 4) {
      have_previous_ = true;
      previous_time_ = t;
      previous_mass_ = m;
    }
  }
}

void SfrCsv::write(double time, double m_formed) {
  const double m = m_formed * msun_per_mass_;
  double sfr = 0.0;
  if (have_previous_ && time > previous_time_)
    sfr = (m - previous_mass_) / ((time - previous_time_) * yr_per_time_);
  std::fprintf(f_, "%.17g,%.17g,%.17g,%.17g\n", time, time * yr_per_time_ * 1e-6, sfr, m);
  if (std::fflush(f_) != 0 || std::ferror(f_))
    throw Error(write_error("cannot write '" + path_ + "'", path_, errno));
  have_previous_ = true;
  previous_time_ = time;
  previous_mass_ = m;
}

}  // namespace mpsph
