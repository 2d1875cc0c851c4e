// SPH stage throughput on the CPU: particles per second for the kd-tree smoothing lengths, the
// pair lists, density, prepare-force and forces, on a glass-like set (jittered cubic lattice in a
// periodic unit box, random velocities), with 1 and 2 OpenMP threads, in random memory order
// ("unsorted") and after order_particles ("sorted", Morton order).
//
//   bench_sph [--repeat R] [N ...]   default: R = 1, N = 100000 1000000 (rounded to n^3)
// With R > 1 each stage reports its fastest of R runs (the machine may be shared).
// "density+pairs" is the density stage as a step runs it (pair lists filtered from the kNN
// candidates of the h stage); "pairs (search)" rebuilds the pair lists with a tree search per
// particle, the path taken when h changed after the h stage.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "bench_sets.hpp"
#include "core/box.hpp"
#include "core/particle_order.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"

using namespace mpsph;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// bench::glass_like in random memory order.
ParticleStore glass_like(int n) {
  ParticleStore s = bench::glass_like(n);
  const std::size_t total = s.size();
  // Random memory order (Fisher-Yates with the counter-based generator).
  std::vector<std::size_t> perm(total);
  for (std::size_t k = 0; k < total; ++k) perm[k] = k;
  for (std::size_t k = total - 1; k > 0; --k)
    std::swap(perm[k], perm[std::size_t(random_uniform(k, 8, kStreamSetup) * double(k + 1))]);
  s.permute(perm);
  return s;
}

struct Timing {
  double tree, h, pairs, density, prepare, force;
};

Timing run_stages(ParticleStore& s, const Box& box) {
  const SphParams sp;
  const EosParams eos;
  SphNeighbours nb;
  Timing t{};
  double t0 = now();
  // Tree alone (compute_smoothing_lengths builds it again, as the driver does every step).
  nb.build_tree(s, box, 0.05);
  nb.ensure_index();
  t.tree = now() - t0;
  t0 = now();
  compute_smoothing_lengths(s, box, sp, nb);
  t.h = now() - t0;
  t0 = now();
  compute_density(s, box, sp, nb);  // pair lists from the kNN candidates + density loop
  t.density = now() - t0;
  t0 = now();
  prepare_force(s, eos, sp);
  t.prepare = now() - t0;
  t0 = now();
  compute_sph_forces(s, box, sp, nb);
  t.force = now() - t0;
  t0 = now();
  nb.build_pairs(s, box);  // again, without cached candidates: one tree search per particle
  t.pairs = now() - t0;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> sizes;
  int repeat = 1;
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) == "--repeat" && k + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++k]));
    else
      sizes.push_back(std::atol(argv[k]));
  }
  if (sizes.empty()) sizes = {100000, 1000000};

  Box box;
  box.periodic = true;
  box.lo = {0, 0, 0};
  box.size = {1, 1, 1};

  std::printf("SPH stages, glass-like periodic box, N_B = %d, max threads %d\n",
              SphParams{}.n_neighbours, omp_get_max_threads());
  std::printf("rates in 1e6 particles/s (time in s); h = tree + kNN + h\n");
  std::printf("%9s %8s %3s | %15s %15s %15s %15s %15s %15s | %8s\n", "N", "order", "thr", "tree",
              "h (kNN)", "density+pairs", "prepare", "force", "pairs (search)", "sort [s]");
  for (const long n_req : sizes) {
    const int n = int(std::lround(std::cbrt(double(n_req))));
    const ParticleStore unsorted = glass_like(n);
    ParticleStore sorted = unsorted;
    const double t0 = now();
    order_particles(sorted, box);
    const double t_sort = now() - t0;
    for (const bool is_sorted : {false, true})
      for (const int threads : {1, 2}) {
        omp_set_num_threads(threads);
        Timing t{};
        std::size_t count = 0;
        for (int r = 0; r < repeat; ++r) {
          ParticleStore s = is_sorted ? sorted : unsorted;
          const Timing tr = run_stages(s, box);
          count = s.size();
          t = r == 0 ? tr : Timing{std::min(t.tree, tr.tree),       std::min(t.h, tr.h),
                                   std::min(t.pairs, tr.pairs),     std::min(t.density, tr.density),
                                   std::min(t.prepare, tr.prepare), std::min(t.force, tr.force)};
        }
        const double np = double(count) * 1e-6;
        auto cell = [np](double sec) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%6.2f (%6.3f)", np / sec, sec);
          return std::string(buf);
        };
        std::printf("%9zu %8s %3d | %15s %15s %15s %15s %15s %15s | %8.3f\n", count,
                    is_sorted ? "morton" : "random", threads, cell(t.tree).c_str(),
                    cell(t.h).c_str(), cell(t.density).c_str(), cell(t.prepare).c_str(),
                    cell(t.force).c_str(), cell(t.pairs).c_str(), is_sorted ? t_sort : 0.0);
        std::fflush(stdout);
      }
  }
  return 0;
}
