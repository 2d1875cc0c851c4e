// Sink merging on the GPU against the CPU: the run of tests/sinks/sink_merge_test_support.hpp
// (two sinks falling together through the collapsing sphere) on both backends merges the same
// pair (same ids, the same diagnostics row) with the same masses, and the survivor ends in the same
// state.
//
// Bounds, as tests/sinks/sinks_gpu_test.cpp: the backends run the same double-precision functions
// on the same particles and differ in the last bits (FMA contraction, the order of float gravity
// sums), which the run amplifies over its steps: times, positions, velocities and spins agree to
// 1e-6 (of 1, the sphere's radius and free-fall speed; spins of the survivor's mass times them);
// masses are sums of the same particle masses in the same order (1e-12).
#ifdef MPSPH_HAVE_CUDA
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "sinks/sink_merge_test_support.hpp"

using namespace mpsph;

namespace {

void compare(const std::string& scheme, const std::vector<std::string>& set) {
  const std::string dc = test::scratch_dir("sink_merge_gpu_cpu"),
                    dg = test::scratch_dir("sink_merge_gpu_gpu");
  const std::string ics = dc + "/ics.h5";
  test::write_sink_merge_ics(ics);
  {
    Simulation sim(test::run_options(dc, test::sink_merge_yaml(ics), set, std::string("cpu")));
    REQUIRE(sim.run());
  }
  {
    Simulation sim(test::run_options(dg, test::sink_merge_yaml(ics), set, std::string("gpu")));
    REQUIRE(sim.run());
  }
  const auto mc = test::csv_rows(dc + "/sink_merges.csv"),
             mg = test::csv_rows(dg + "/sink_merges.csv");
  REQUIRE(!mc.empty());
  REQUIRE(mc.size() == mg.size());
  for (std::size_t k = 0; k < mc.size(); ++k) {
    std::printf(
        "[gpu sink merge] %s merge %zu: t %.9g/%.9g, kept %.0f/%.0f merged %.0f/%.0f, masses "
        "%.17g+%.17g / %.17g+%.17g, separation %.9g/%.9g\n",
        scheme.c_str(), k, mc[k][0], mg[k][0], mc[k][1], mg[k][1], mc[k][2], mg[k][2], mc[k][3],
        mc[k][4], mg[k][3], mg[k][4], mc[k][5], mg[k][5]);
    CHECK(std::fabs(mc[k][0] - mg[k][0]) < 1e-6);
    CHECK(mc[k][1] == mg[k][1]);
    CHECK(mc[k][2] == mg[k][2]);
    CHECK(std::fabs(mc[k][3] - mg[k][3]) <= 1e-12 * mc[k][3]);
    CHECK(std::fabs(mc[k][4] - mg[k][4]) <= 1e-12 * mc[k][4]);
    CHECK(std::fabs(mc[k][5] - mg[k][5]) < 1e-6);
  }
  // The last sinks.csv rows (every sink at t_end): the same sinks in the same state.
  auto last = [](const std::vector<std::vector<double>>& rows) {
    std::vector<std::vector<double>> out;
    for (const auto& r : rows)
      if (r[0] == rows.back()[0]) out.push_back(r);
    return out;
  };
  const auto rc = last(test::csv_rows(dc + "/sinks.csv")),
             rg = last(test::csv_rows(dg + "/sinks.csv"));
  REQUIRE(rc.size() == rg.size());
  for (std::size_t k = 0; k < rc.size(); ++k) {
    INFO("sink " << rc[k][1]);
    CHECK(rc[k][1] == rg[k][1]);
    CHECK(std::fabs(rc[k][2] - rg[k][2]) <= 1e-12 * rc[k][2]);
    for (int c = 3; c < 9; ++c) CHECK(std::fabs(rc[k][c] - rg[k][c]) < 1e-6);
    for (int c = 9; c < 12; ++c) CHECK(std::fabs(rc[k][c] - rg[k][c]) < 1e-6 * rc[k][2]);
  }
}

}  // namespace

TEST_CASE("sinks: the GPU merges the same sinks as the CPU (global scheme)", "[sinks][gpu]") {
  compare("global", {});
}

TEST_CASE("sinks: the GPU merges the same sinks as the CPU (block scheme)", "[sinks][gpu]") {
  compare("block", {"timestep.scheme=block", "timestep.dt_max=0.05"});
}

#endif  // MPSPH_HAVE_CUDA
