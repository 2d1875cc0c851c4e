// sinks.csv: header, rows by id, and the restart trim; the unit scale of the sink CSV headers.
#include "sinks/sink_csv.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "core/constants.hpp"
#include "io/module_csv.hpp"
#include "run/simulation_test_support.hpp"
#include "sinks/sink_merge_csv.hpp"

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

TEST_CASE("sinks.csv and sink_merges.csv state the cgs scale of their code units", "[sinks][io]") {
  // pc, Msun, km/s: code time = pc / (km/s) = 3.0857e13 s; code energy = Msun (km/s)^2 =
  // 1.98841e43 erg. The two headers share the time, length and mass scale and differ in the last
  // unit (velocity for sinks.csv, energy for sink_merges.csv).
  const UnitSystem u = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
  const std::string common =
      "# units: code time = 3.085678e+13 s, code length = 3.085678e+18 cm, code mass = "
      "1.988410e+33 g, ";
  CHECK(sinks_csv_header(u).find(common + "code velocity = 1.000000e+05 cm/s; ") !=
        std::string::npos);
  CHECK(sink_merges_csv_header(u).find(common + "code energy = 1.988410e+43 erg; ") !=
        std::string::npos);
  const UnitSystem nbody = UnitSystem::nbody_units();
  for (const std::string& h : {sinks_csv_header(nbody), sink_merges_csv_header(nbody)})
    CHECK(h.find("# units: N-body units (G = 1): no cgs scale; ") != std::string::npos);
}
