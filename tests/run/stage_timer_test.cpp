// The step profile of StageTimer: each (sub)step's stage times go to the row of its active
// fraction, and the rows' per-step and per-update times are the sums divided by the counts.
#include "run/stage_timer.hpp"

#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

using namespace mpsph;

namespace {

// The numbers of the row whose first words are `first` in a step profile or a stage table (a
// share without its % sign).
std::vector<double> row(const std::string& table, const std::string& first) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(first + " ", 0) != 0) continue;
    std::istringstream words(line.substr(first.size()));
    std::vector<double> v;
    for (std::string w; words >> w;) {
      if (!w.empty() && w.back() == '%') w.pop_back();
      v.push_back(std::stod(w));
    }
    return v;
  }
  return {};
}

}  // namespace

TEST_CASE("the step profile bins (sub)steps by their active fraction", "[run][timer]") {
  StageTimer t;
  // Two substeps with 5 of 1000 particles active (fraction 0.005): 2 ms and 4 ms in two stages.
  t.add("density", 0.001);
  t.add("gravity", 0.001);
  t.end_step(5, 1000);
  t.add("density", 0.003);
  t.add("gravity", 0.001);
  t.end_step(5, 1000);
  // One step with every particle active: 10 ms, all in gravity.
  t.add("gravity", 0.010);
  t.end_step(1000, 1000);
  const std::string p = t.step_profile();
  INFO(p);
  // steps, updates, ms/step, ns/update, then density and gravity in ms per step.
  const std::vector<double> small = row(p, "0.001-0.01");
  REQUIRE(small.size() == 6);
  CHECK(small[0] == 2);
  CHECK(small[1] == 10);
  CHECK(small[2] == Approx(3.0).epsilon(1e-3));
  CHECK(small[3] == Approx(6e5).epsilon(1e-3));  // 6 ms over 10 updates
  CHECK(small[4] == Approx(2.0).epsilon(1e-3));
  CHECK(small[5] == Approx(1.0).epsilon(1e-3));
  const std::vector<double> all = row(p, "1 (all)");
  REQUIRE(all.size() == 6);
  CHECK(all[0] == 1);
  CHECK(all[1] == 1000);
  CHECK(all[2] == Approx(10.0).epsilon(1e-3));
  CHECK(all[4] == 0.0);
  CHECK(all[5] == Approx(10.0).epsilon(1e-3));
  CHECK(row(p, "< 0.001").empty());  // no step in that bin: no row
  CHECK(t.total() == Approx(0.016).epsilon(1e-12));
}

TEST_CASE("the stage table gives the time per step after the first", "[run][timer]") {
  StageTimer t;
  t.add("density", 0.050);  // the first step: the start-up
  t.end_step(10, 10);
  CHECK(t.table(1).find("steps 2+") == std::string::npos);  // one step: no such column
  t.add("density", 0.002);
  t.add("gravity", 0.001);
  t.end_step(10, 10);
  t.add("density", 0.004);
  t.add("gravity", 0.003);
  t.end_step(10, 10);
  const std::string table = t.table(3);
  INFO(table);
  REQUIRE(table.find("steps 2+ [ms]") != std::string::npos);
  // density: 56 ms in 3 steps, (2 + 4) / 2 ms after the first; gravity 4 ms, (1 + 3) / 2.
  const std::vector<double> density = row(table, "density");
  REQUIRE(density.size() == 4);
  CHECK(density[2] == Approx(56.0 / 3).epsilon(1e-4));
  CHECK(density[3] == Approx(3.0).epsilon(1e-4));
  const std::vector<double> gravity = row(table, "gravity");
  REQUIRE(gravity.size() == 4);
  CHECK(gravity[3] == Approx(2.0).epsilon(1e-4));
  const std::vector<double> total = row(table, "total");
  REQUIRE(total.size() == 4);
  CHECK(total[3] == Approx(5.0).epsilon(1e-4));
}
