// Whole Evrard step on the CPU backend: wall time per step and per stage, particle updates per
// second, for given N and thread counts (OpenMP). Usage:
//   bench_step [--steps K] [--threads T1,T2,...] N1 [N2 ...]
// Each run builds the Evrard sphere, computes the initial forces (not timed), then times K steps
// (all stages of the step, diagnostics included; snapshots and checkpoints excluded).
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run/simulation.hpp"

int main(int argc, char** argv) {
  long steps = 5;
  std::vector<int> threads = {1, 2};
  std::vector<long> ns;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) {
      steps = std::atol(argv[++i]);
    } else if (a == "--threads" && i + 1 < argc) {
      threads.clear();
      std::stringstream ss(argv[++i]);
      std::string t;
      while (std::getline(ss, t, ',')) threads.push_back(std::atoi(t.c_str()));
    } else {
      ns.push_back(std::atol(a.c_str()));
    }
  }
  if (ns.empty()) ns = {10000, 100000};
  const auto dir = std::filesystem::temp_directory_path() / "mpsph_bench_step";
  std::filesystem::create_directories(dir);
  const std::string cfg = (dir / "evrard.yaml").string();
  std::ofstream(cfg) << "run: {t_end: 3.0, checkpoint_every_minutes: 0}\n"
                        "setup: {type: evrard}\n"
                        "gravity: {softening: [0.01]}\n"
                        "timestep: {scheme: global}\n";  // every step updates every particle
  std::printf("%-9s %-7s %-7s %12s %14s   per-stage ms/step\n", "N", "threads", "steps", "ms/step",
              "updates/s");
  for (long n : ns) {
    for (int t : threads) {
      omp_set_num_threads(t);
      mpsph::RunOptions o;
      o.config_path = cfg;
      o.output_dir = (dir / "out").string();
      o.quiet = true;
      o.overrides = {"setup.n_particles=" + std::to_string(n),
                     "run.max_steps=" + std::to_string(steps), "run.threads=" + std::to_string(t)};
      mpsph::Simulation sim(o);
      const double setup_s = sim.timer().total();
      sim.run();
      const double per_step = (sim.timer().total() - setup_s) / double(steps);
      std::printf("%-9zu %-7d %-7ld %12.1f %14.3g\n", sim.particles().size(), t, steps,
                  1e3 * per_step, double(sim.particles().size()) / per_step);
      std::printf("%s", sim.timer().table(sim.step_count()).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
