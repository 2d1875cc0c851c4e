// energy.csv on restart keeps its header and the complete rows up to the checkpoint's step.
#include "run/energy_csv.hpp"

#include "catch.hpp"

using namespace mpsph;

TEST_CASE("energy.csv is cut back to the checkpoint's step", "[run][restart]") {
  const std::string head = "# units: N-body\n# E_total = ...\nstep,time,dt,E_total\n";
  const std::string rows = "0,0,0.01,-0.7\n1,0.01,0.01,-0.7\n2,0.02,0.01,-0.7\n3,0.03,0.01,-0.7\n";
  SECTION("rows after the step go") {
    CHECK(energy_csv_up_to_step(head + rows, 1) == head + "0,0,0.01,-0.7\n1,0.01,0.01,-0.7\n");
  }
  SECTION("a row cut short by a kill goes, even at the step") {
    CHECK(energy_csv_up_to_step(head + rows + "4,0.04,0.0", 10) == head + rows);
    CHECK(energy_csv_up_to_step(head + "0,0,0.01,-0.7\n1,0.0", 1) == head + "0,0,0.01,-0.7\n");
  }
  SECTION("steps compare as numbers, not text") {
    CHECK(energy_csv_up_to_step(head + "9,1\n10,2\n11,3\n", 10) == head + "9,1\n10,2\n");
  }
  SECTION("a header alone or nothing stays as it is") {
    CHECK(energy_csv_up_to_step(head, 5) == head);
    CHECK(energy_csv_up_to_step("", 5).empty());
  }
}
