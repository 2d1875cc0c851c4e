// sfr.csv: one row per energy.csv row, in the run's output directory. Comment lines ('# ') state
// the units, then the column line
//   time,time_Myr,SFR_Msun_per_yr,M_formed_Msun,E_feedback_injected,E_feedback_injected_erg
// time in code time and in Myr; SFR the mean star formation rate since the previous row (0 on the
// first row of a run); M_formed the stellar mass formed in the run so far (the initial masses of
// the type-4 stars and the pending requests for stars); E_feedback_injected the SN energy the
// feedback module injected so far (minus its energy.csv account E_feedback, the same row's value;
// 0 without feedback), in code energy and in erg. On restart the rows after the checkpoint's time
// are dropped (as energy.csv's and sinks.csv's) and the last kept row is the previous one of the
// next SFR, so the file of a restarted run is that of an uninterrupted one (the feedback account
// is restored from the checkpoint).
#pragma once

#include <string>

#include "io/module_csv.hpp"

namespace mpsph {

// The comment lines and the column line; `time_unit` and `energy_unit` describe the code time and
// energy.
std::string sfr_csv_header(const std::string& time_unit, const std::string& energy_unit);

class SfrCsv {
 public:
  SfrCsv() = default;
  SfrCsv(const SfrCsv&) = delete;
  SfrCsv& operator=(const SfrCsv&) = delete;
  // A new run: creates `dir`/sfr.csv. A restart at `time`: keeps the header and the rows up to
  // `time` (durably rewritten), takes the last of them as the previous row, and appends; a file
  // with other columns (an older mpsph's) is refused. `yr_per_time`, `msun_per_mass` and
  // `erg_per_energy` convert code time, mass and energy. Throws mpsph::Error.
  void open(const std::string& dir, double yr_per_time, double msun_per_mass, double erg_per_energy,
            double time, bool restart);
  bool is_open() const { return file_.is_open(); }
  // One row at code time `time` with `m_formed` [code mass] formed and `e_feedback` [code energy]
  // of feedback energy injected so far; flushed.
  void write(double time, double m_formed, double e_feedback);

 private:
  ModuleCsvFile file_;
  double yr_per_time_ = 1.0;
  double msun_per_mass_ = 1.0;
  double erg_per_energy_ = 1.0;
  bool have_previous_ = false;
  double previous_time_ = 0.0;  // code time
  double previous_mass_ = 0.0;  // Msun
};

}  // namespace mpsph
