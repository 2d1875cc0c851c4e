// `mpsph info RUNDIR`: the summary must report what the run directory's files hold, derive wall
// time and updates/s from timing.txt, and say which parts are missing instead of guessing.
#include "io/run_info.hpp"

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "io/io_test_support.hpp"
#include "io/snapshot.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// A run directory as a finished run leaves it: resolved config, energy.csv, timing.txt and two
// snapshots (the last with 3 gas and 2 dark-matter particles at step 40).
std::filesystem::path make_run_dir(const std::string& name) {
  const std::filesystem::path dir = test::scratch_path(name);
  std::filesystem::create_directories(dir);
  write_text(dir / "config_resolved.yaml",
             "# mpsph resolved configuration\n"
             "run:\n  t_end: 0.5\n  device: auto\n  snapshot_times: [0.25, 0.5]\n"
             "setup:\n  type: evrard\n  n_particles: 5\n"
             "units:\n  system: physical\n  length: pc\n  mass: Msun\n  velocity: km/s\n"
             "eos:\n  type: adiabatic\n  gamma: 1.6666666666666667\n");
  write_text(dir / "energy.csv",
             "# mpsph energy and momentum diagnostics\n"
             "step,time,dt,E_total,rel_error\n"
             "0,0,0.01,-1,0\n"
             "20,0.25,0.01,-1.003,-0.003\n"
             "40,0.5,0.01,-0.999,0.001\n");
  write_text(dir / "timing.txt",
             "stage                  time [s]     share   per step [ms]\n"
             "order + trees             1.000     25.0%          25.000\n"
             "smoothing lengths         3.000     75.0%          75.000\n"
             "total                     4.000    100.0%         100.000\n"
             "backend: cpu (MPI ranks), 1 OpenMP threads\n"
             "\nMPI ranks: 2, SPH passes and gravity on the CPU; stage parts, ms per step:\n"
             "  order                                       4.586 (4.186)\n");
  ParticleStore s = test::make_store({0, 1, 0, 1, 0});
  SnapshotMeta meta;
  meta.time = 0.25;
  meta.step = 20;
  write_snapshot((dir / "snapshot_0000.h5").string(), s, meta);
  meta.time = 0.5;
  meta.step = 40;
  write_snapshot((dir / "snapshot_0001.h5").string(), s, meta);
  return dir;
}

}  // namespace

TEST_CASE("run info reports config, progress, energy error, timing and files", "[io][info]") {
  const std::filesystem::path dir = make_run_dir("run_full");
  const std::string info = run_info(dir.string());
  INFO(info);
  CHECK(contains(info, "run directory  " + dir.string()));
  // Sections in the order setup, units, physics, run; keys in the file's order.
  CHECK(contains(info,
                 "  setup        type evrard, n_particles 5\n"
                 "  units        system physical, length pc, mass Msun, velocity km/s\n"
                 "  eos          type adiabatic, gamma 1.6666666666666667\n"
                 "  run          t_end 0.5, device auto, snapshot_times [0.25, 0.5]\n"));
  CHECK(contains(info, "run.device = auto requested (the backend that ran: see timing.txt"));
  CHECK(contains(info, "particles      5 (snapshot_0001.h5): gas 3, dark matter 2\n"));
  CHECK(contains(info, "how far        t = 0.5 of t_end 0.5 (reached), step 40 (energy.csv"));
  CHECK(contains(info, "last snapshot snapshot_0001.h5: t = 0.5, step 40\n"));
  CHECK(contains(info, "checkpoint.h5: missing\n"));
  // max |rel_error| is the -0.003 row at t = 0.25; the last row's is 0.001.
  CHECK(contains(info, "max |rel_error| 3.000e-03 (at t = 0.25), last 1.000e-03 (energy.csv, 3"));
  // 4 s total at 100 ms per step = 40 steps; 5 particles x 40 steps / 4 s = 50 updates/s.
  CHECK(contains(info, "wall time      4.000 s for 40 steps, 100.000 ms per step"));
  CHECK(contains(info, "updates/s      50 (5 particles x 40 steps / 4.000 s)"));
  // Stages largest first.
  const std::size_t sl = info.find("  smoothing lengths"), ot = info.find("  order + trees");
  REQUIRE(sl != std::string::npos);
  REQUIRE(ot != std::string::npos);
  CHECK(sl < ot);
  CHECK(contains(info, "snapshot_0000.h5 .. snapshot_0001.h5   2 files"));
  CHECK(contains(info, "  timing.txt "));
}

TEST_CASE("run info reads the backend, steps and particle updates that end timing.txt",
          "[io][info]") {
  const std::filesystem::path dir = make_run_dir("run_footer");
  {
    std::ofstream t(dir / "timing.txt", std::ios::app);
    t << "backend: gpu, 16 OpenMP threads\nsteps: 30 this run, 40 in total\n"
         "particle updates: 120\n";
  }
  const std::string info = run_info(dir.string());
  INFO(info);
  CHECK(contains(info, "backend        gpu, 16 OpenMP threads (timing.txt)\n"));
  // The steps of this run (30, after a restart at step 10), not total / per-step time.
  CHECK(contains(info, "wall time      4.000 s for 30 steps"));
  CHECK(contains(info, "updates/s      30 (120 particle updates / 4.000 s)"));
}

TEST_CASE("run info says what is missing in an unfinished run", "[io][info]") {
  const std::filesystem::path dir = make_run_dir("run_partial");
  std::filesystem::remove(dir / "timing.txt");
  std::filesystem::remove(dir / "config_resolved.yaml");
  const std::string info = run_info(dir.string());
  INFO(info);
  CHECK(contains(info, "config_resolved.yaml missing: setup, units, physics and device unknown"));
  CHECK(contains(info, "wall time      timing.txt missing (written when a run ends)"));
  CHECK(contains(info, "how far        t = 0.5, step 40 (energy.csv, last row)"));
  CHECK_FALSE(contains(info, "updates/s"));
}

TEST_CASE("run info refuses a directory that holds no run", "[io][info]") {
  const std::filesystem::path dir = test::scratch_path("not_a_run");
  std::filesystem::create_directories(dir);
  write_text(dir / "notes.txt", "hello\n");
  const std::string msg = test::error_message([&] { run_info(dir.string()); });
  CHECK(contains(msg, "is not an mpsph run directory"));
  write_text(dir / "energy.csv", "step,time\n0,0\n");
  const std::string msg2 = test::error_message([&] { run_info(dir.string()); });
  CHECK(contains(msg2, "has no column 'rel_error'"));
}
