// Sink-sink merging in a whole CPU run (tests/sinks/sink_merge_test_support.hpp): two sinks fall
// through the collapsing isothermal sphere towards each other off-axis and merge. The merge is
// written to sink_merges.csv (the lower id survives), the merged sink leaves sinks.csv, the
// survivor's row at the merge carries both masses and the pair's orbital angular momentum as
// spin, and the run conserves mass to round-off. With sinks.merge_radius 0 the two sinks do not
// merge.
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "io/snapshot.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "sinks/sink_merge_test_support.hpp"

using namespace mpsph;

TEST_CASE("sinks: two sinks falling together merge, recorded in sink_merges.csv and sinks.csv",
          "[sinks][validation]") {
  const std::string dir = test::scratch_dir("sink_merge_cpu");
  const std::string ics = dir + "/ics.h5";
  test::write_sink_merge_ics(ics);
  const ParticleStore start = read_snapshot(ics);
  double m0 = 0.0;
  for (std::size_t i = 0; i < start.size(); ++i) m0 += start.mass[i];
  {
    Simulation sim(test::run_options(dir, test::sink_merge_yaml(ics), {}, std::string("cpu")));
    REQUIRE(sim.run());
  }
  const std::vector<std::vector<double>> merges = test::csv_rows(dir + "/sink_merges.csv");
  REQUIRE(merges.size() >= 1);
  // time,id_kept,id_merged,mass_kept,mass_merged,separation,energy
  const std::vector<double>& m = merges[0];
  REQUIRE(m.size() == 7);
  const double t_merge = m[0];
  INFO("merge at t = " << t_merge << ": masses " << m[3] << " + " << m[4] << ", separation " << m[5]
                       << ", E_pair " << m[6]);
  CHECK(uint64_t(m[1]) == test::kMergeSinkA);  // the lower id survives
  CHECK(uint64_t(m[2]) == test::kMergeSinkB);
  CHECK(m[5] < 0.05);   // inside the merging radius (1 h_acc)
  CHECK(m[6] < 0.0);    // bound
  CHECK(m[3] >= 0.05);  // each kept its initial 0.05 and what it accreted on the way
  CHECK(m[4] >= 0.05);
  // sinks.csv: no row of the merged sink from the merge on; the survivor's row at the merge has the
  // pair's mass (the merge is the last change of mass in its step) and spin.
  const std::vector<std::vector<double>> rows = test::csv_rows(dir + "/sinks.csv");
  // The two sinks at the row before the merge: their spins plus the pair's orbital angular
  // momentum about its centre of mass, mu (d x w)_z, is what the survivor's spin should be, up to
  // the torque of the gas over the merge step.
  const std::vector<double>* before[2] = {nullptr, nullptr};
  for (const std::vector<double>& r : rows)
    if (r[0] < t_merge) before[uint64_t(r[1]) == test::kMergeSinkA ? 0 : 1] = &r;
  REQUIRE(before[0] != nullptr);
  REQUIRE(before[1] != nullptr);
  const std::vector<double>&a = *before[0], &b = *before[1];
  const double mu = a[2] * b[2] / (a[2] + b[2]);
  const double l_expected =
      mu * ((b[3] - a[3]) * (b[7] - a[7]) - (b[4] - a[4]) * (b[6] - a[6])) + a[11] + b[11];
  bool found = false;
  for (const std::vector<double>& r : rows) {
    if (uint64_t(r[1]) == test::kMergeSinkB) CHECK(r[0] < t_merge);
    if (uint64_t(r[1]) == test::kMergeSinkA && r[0] == t_merge) {
      found = true;
      CHECK(r[2] == m[3] + m[4]);
      // Measured (CPU, 2026-11-25): spin_z 5.2379e-5 against 5.2456e-5 from the row before (0.15%);
      // the bound of 1% is the gas's torque on the pair over one step.
      INFO("spin_z " << r[11] << ", expected from the row before " << l_expected);
      CHECK(std::fabs(l_expected) > 1e-5);
      CHECK(std::fabs(r[11] - l_expected) <= 0.01 * std::fabs(l_expected));
    }
  }
  CHECK(found);
  // The end: one sink fewer than the two given, mass conserved to round-off.
  const ParticleStore end = read_snapshot(dir + "/snapshot_0001.h5");
  double m1 = 0.0;
  for (std::size_t i = 0; i < end.size(); ++i) m1 += end.mass[i];
  CHECK(std::fabs(m1 - m0) <= 1e-12 * m0);
  CHECK(end.count_by_type()[kSink] == 1);
  WARN("sink merge run: merge at t = " << t_merge << ", masses " << m[3] << " + " << m[4]
                                       << ", separation " << m[5] << ", E_pair " << m[6]);

  // Merging off: both sinks stay.
  const std::string off = test::scratch_dir("sink_merge_off");
  {
    Simulation sim(test::run_options(off, test::sink_merge_yaml(ics), {"sinks.merge_radius=0"},
                                     std::string("cpu")));
    REQUIRE(sim.run());
  }
  CHECK(read_snapshot(off + "/snapshot_0001.h5").count_by_type()[kSink] >= 2);
}
