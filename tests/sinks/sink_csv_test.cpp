// sinks.csv: header, rows by id, and the restart trim.
#include "sinks/sink_csv.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "io/module_csv.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

TEST_CASE("sinks.csv: unit comments, the column line, rows by id", "[sinks][io]") {
  UnitSystem u;  // N-body
  const std::string h = sinks_csv_header(u);
  CHECK(h.rfind("# ", 0) == 0);
  CHECK(h.find("\ntime,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass\n") !=
        std::string::npos);
  ParticleStore s;
  s.resize(3);
  s.type[0] = kGas;
  s.type[1] = kSink;
  s.type[2] = kSink;
  s.id[1] = 9;
  s.id[2] = 4;
  s.mass[1] = 2.0;
  s.mass[2] = 3.0;
  s.spin[2] = {0, 0, 0.25};
  const std::vector<SinkRow> rows = sink_rows(s.view());
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id == 4);
  CHECK(rows[1].id == 9);
  const std::string dir = test::scratch_dir("sinks_csv_unit");
  {
    SinksCsv f;
    f.open(dir, u, 0.0, false);
    f.write(0.5, rows);
    f.write(1.0, rows);
  }
  std::ifstream in(dir + "/sinks.csv");
  std::stringstream text;
  text << in.rdbuf();
  const std::string t = text.str();
  CHECK(t.find("0.5,4,3,0,0,0,0,0,0,0,0,0.25,0\n") != std::string::npos);
  // A restart at t = 0.5 keeps the header and the rows up to 0.5; a row cut short goes too.
  const std::string trimmed = csv_rows_up_to_time(t + "1.5,4,3", 0.5);
  CHECK(trimmed == h + "0.5,4,3,0,0,0,0,0,0,0,0,0.25,0\n0.5,9,2,0,0,0,0,0,0,0,0,0,0\n");
  {
    SinksCsv f;
    f.open(dir, u, 0.5, true);
    f.write(0.75, rows);
  }
  std::ifstream in2(dir + "/sinks.csv");
  std::stringstream text2;
  text2 << in2.rdbuf();
  CHECK(text2.str() == trimmed + "0.75,4,3,0,0,0,0,0,0,0,0,0.25,0\n0.75,9,2,0,0,0,0,0,0,0,0,0,0\n");
}
