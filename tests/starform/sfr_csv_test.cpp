// sfr.csv (starform/sfr_csv.hpp): the header states the units of every column, a row carries the
// SFR since the previous row, the mass formed and the feedback energy in code units and in erg; a
// restart keeps the rows up to its time and takes the last of them as the previous row; a file with
// other columns (an older mpsph's) is refused on restart rather than appended to.
#include "starform/sfr_csv.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

std::vector<std::string> data_rows(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] != '#' && line.compare(0, 5, "time,") != 0) rows.push_back(line);
  return rows;
}

// Units of a run in pc, Msun, km/s: 1 code time = 977792.2 yr, code energy = 1.98841e43 erg
// (rounded: the test only needs the conversion to be applied).
constexpr double kYr = 1e6, kMsun = 2.0, kErg = 1e43;

}  // namespace

TEST_CASE("sfr.csv: units in the header, SFR and feedback energy in each row", "[starform]") {
  const std::string dir = test::scratch_dir("sfr_csv_rows");
  {
    SfrCsv csv;
    csv.open(dir, kYr, kMsun, kErg, 0.0, false);
    csv.write(0.0, 0.0, 0.0);
    csv.write(1.0, 5.0, 3.0);   // 10 Msun formed in 1e6 yr: 1e-5 Msun/yr
    csv.write(3.0, 10.0, 7.5);  // 10 Msun more in 2e6 yr
  }
  const std::string text = test::read_text(dir + "/sfr.csv");
  CHECK(text.find("time,time_Myr,SFR_Msun_per_yr,M_formed_Msun,E_feedback_injected,"
                  "E_feedback_injected_erg\n") != std::string::npos);
  CHECK(text.find("1 code energy = 1.000000e+43 erg") != std::string::npos);
  CHECK(text.find("1 code time = 1.000000e+06 yr") != std::string::npos);
  const std::vector<std::string> rows = data_rows(text);
  REQUIRE(rows.size() == 3);
  double t, t_myr, sfr, m, e, e_erg;
  REQUIRE(std::sscanf(rows[1].c_str(), "%lf,%lf,%lf,%lf,%lf,%lf", &t, &t_myr, &sfr, &m, &e,
                      &e_erg) == 6);
  CHECK(t_myr == 1.0);
  CHECK(sfr == Approx(1e-5).epsilon(1e-15));
  CHECK(m == 10.0);
  CHECK(e == 3.0);
  CHECK(e_erg == 3e43);
  REQUIRE(std::sscanf(rows[2].c_str(), "%lf,%lf,%lf,%lf,%lf,%lf", &t, &t_myr, &sfr, &m, &e,
                      &e_erg) == 6);
  CHECK(sfr == Approx(5e-6).epsilon(1e-15));
  CHECK(e_erg == 7.5e43);
}

TEST_CASE("sfr.csv on restart: rows up to the checkpoint kept, older columns refused",
          "[starform]") {
  const std::string dir = test::scratch_dir("sfr_csv_restart");
  {
    SfrCsv csv;
    csv.open(dir, kYr, kMsun, kErg, 0.0, false);
    csv.write(0.0, 0.0, 0.0);
    csv.write(1.0, 5.0, 3.0);
    csv.write(2.0, 6.0, 4.0);  // written after the checkpoint at t = 1: dropped
  }
  {
    SfrCsv csv;
    csv.open(dir, kYr, kMsun, kErg, 1.0, true);
    csv.write(2.0, 7.0, 5.0);  // 4 Msun since the kept row at t = 1: 4e-6 Msun/yr
  }
  const std::vector<std::string> rows = data_rows(test::read_text(dir + "/sfr.csv"));
  REQUIRE(rows.size() == 3);
  double t, t_myr, sfr, m, e, e_erg;
  REQUIRE(std::sscanf(rows[2].c_str(), "%lf,%lf,%lf,%lf,%lf,%lf", &t, &t_myr, &sfr, &m, &e,
                      &e_erg) == 6);
  CHECK(t == 2.0);
  CHECK(sfr == Approx(4e-6).epsilon(1e-15));
  CHECK(e == 5.0);

  // A file with the columns of an older mpsph (no feedback energy) would get rows of six columns
  // under a header of four.
  const std::string old =
      "# mpsph star formation\ntime,time_Myr,SFR_Msun_per_yr,M_formed_Msun\n"
      "0,0,0,0\n1,1,1e-05,10\n";
  std::ofstream(dir + "/sfr.csv") << old;
  SfrCsv csv;
  const std::string message =
      test::error_message([&] { csv.open(dir, kYr, kMsun, kErg, 1.0, true); });
  INFO(message);
  CHECK(message.find("time,time_Myr,SFR_Msun_per_yr,M_formed_Msun'") != std::string::npos);
  CHECK(message.find("move it away to restart") != std::string::npos);
  CHECK_FALSE(csv.is_open());
}
