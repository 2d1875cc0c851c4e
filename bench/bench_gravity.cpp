// Gravity throughput: tree (build and walk timed separately) and direct summation on Plummer
// spheres, at 1 and 2 OpenMP threads. Results go to docs/PERFORMANCE.md.
//
//   bench_gravity                 N = 1e5 and 1e6
//   bench_gravity N...            the given particle numbers
//   bench_gravity --sweep [N]     accuracy and walk time over leaf size, group size and theta
//                                 (1 thread, default N = 1e5): how the defaults were chosen
//
// Direct summation times a subset of targets (all particles up to 2e5, else the first 1e4, a
// random sample since Plummer ids are drawn independently) and extrapolates linearly to all N
// targets; the tree's accuracy is measured on the same targets.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/particle_store.hpp"
#include "gravity/direct_gravity.hpp"
#include "gravity/gravity_solver.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;

namespace {

constexpr double kEps = 0.01;  // Plummer softening in N-body units (r_vir = 1)

struct Percentiles {
  double median, p99, p999;
};

Percentiles rel_errors(const std::vector<Vec3d>& acc, const std::vector<Vec3d>& ref,
                       std::size_t n_targets) {
  std::vector<double> e(n_targets);
  for (std::size_t i = 0; i < n_targets; ++i) e[i] = norm(acc[i] - ref[i]) / norm(ref[i]);
  std::sort(e.begin(), e.end());
  const auto at = [&e](double q) { return e[std::min(e.size() - 1, std::size_t(q * e.size()))]; };
  return {at(0.5), at(0.99), at(0.999)};
}

struct DirectRun {
  std::vector<Vec3d> acc;
  double seconds;  // for the n_targets computed
  std::size_t n_targets;
};

DirectRun run_direct(const ParticleStore& s, std::size_t n_targets) {
  const std::vector<float> eps(s.size(), float(kEps));
  DirectRun r{std::vector<Vec3d>(s.size()), 0.0, n_targets};
  std::vector<double> pot(s.size());
  const double t0 = omp_get_wtime();
  direct_gravity({s.pos.data(), s.mass.data(), eps.data(), s.size()}, SofteningKernel::Plummer, 1.0,
                 0, n_targets, r.acc.data(), pot.data());
  r.seconds = omp_get_wtime() - t0;
  return r;
}

// Best of `reps` tree evaluations (build and walk minimised separately) after one untimed call,
// which warms the buffers and gives the relative criterion its |a_old|.
GravityTimings run_tree(ParticleStore& s, const GravityParams& p, int reps, TreeWalkStats* st) {
  GravitySolver solver;
  solver.compute(s, p, 1.0);
  GravityTimings best{1e300, 1e300};
  for (int r = 0; r < reps; ++r) {
    solver.compute(s, p, 1.0);
    best.build_s = std::min(best.build_s, solver.last_timings().build_s);
    best.walk_s = std::min(best.walk_s, solver.last_timings().walk_s);
  }
  if (st) *st = solver.last_walk_stats();
  return best;
}

void throughput(std::size_t n) {
  ParticleStore s = make_plummer(n, 1);
  GravityParams p;
  p.softening.fill(kEps);
  const std::size_t n_targets = n <= 200000 ? n : 10000;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    TreeWalkStats st;
    const GravityTimings t = run_tree(s, p, 2, &st);
    const std::vector<Vec3d> tree_acc = s.acc_grav;
    const DirectRun d = run_direct(s, n_targets);
    const double direct_full = d.seconds * double(n) / double(n_targets);
    const Percentiles e = rel_errors(tree_acc, d.acc, n_targets);
    std::printf(
        "N %8zu threads %d | tree (theta %.2f, leaf %d, group %d): build %.3f s (%.2e p/s), "
        "walk %.3f s (%.2e p/s), total %.2e p/s, %.0f interactions/particle | direct%s: %.2f s "
        "(%.2e p/s, %.2e pairs/s) | tree error vs direct: median %.1e p99 %.1e p99.9 %.1e\n",
        n, threads, p.theta, p.leaf_size, p.group_size, t.build_s, double(n) / t.build_s, t.walk_s,
        double(n) / t.walk_s, double(n) / (t.build_s + t.walk_s),
        double(st.node_interactions + st.particle_interactions) / double(n),
        n_targets < n ? " (extrapolated from 1e4 targets)" : "", direct_full,
        double(n) / direct_full, double(n) * double(n) / direct_full, e.median, e.p99, e.p999);
    std::fflush(stdout);
  }
}

void sweep(std::size_t n) {
  omp_set_num_threads(1);
  ParticleStore s = make_plummer(n, 1);
  const std::size_t n_targets = std::min<std::size_t>(n, 10000);
  const DirectRun d = run_direct(s, n_targets);
  std::printf("sweep: N %zu, 1 thread, errors on %zu targets\n", n, n_targets);
  const auto one = [&](int leaf, int group, double theta, OpeningCriterion crit, double tol) {
    GravityParams p;
    p.softening.fill(kEps);
    p.leaf_size = leaf;
    p.group_size = group;
    p.theta = theta;
    p.criterion = crit;
    p.rel_tol = tol;
    TreeWalkStats st;
    const GravityTimings t = run_tree(s, p, 1, &st);
    const Percentiles e = rel_errors(s.acc_grav, d.acc, n_targets);
    std::printf(
        "leaf %3d group %3d %s %.4f | build %.3f s walk %.3f s | %5.0f node + %5.0f part "
        "int/particle | median %.2e p99 %.2e p99.9 %.2e\n",
        leaf, group, crit == OpeningCriterion::Relative ? "rel_tol" : "theta  ",
        crit == OpeningCriterion::Relative ? tol : theta, t.build_s, t.walk_s,
        double(st.node_interactions) / double(n), double(st.particle_interactions) / double(n),
        e.median, e.p99, e.p999);
    std::fflush(stdout);
  };
  for (int leaf : {8, 16, 32}) {
    for (int group : {16, 32, 64}) {
      for (double theta : {0.5, 0.4, 0.35}) one(leaf, group, theta, OpeningCriterion::Geometric, 0);
    }
  }
  for (double theta : {0.4, 0.35}) one(16, 1, theta, OpeningCriterion::Geometric, 0);
  for (double tol : {0.005, 0.0025, 0.001, 0.0005})
    one(16, 32, 0.35, OpeningCriterion::Relative, tol);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--sweep") == 0) {
    sweep(argc > 2 ? std::size_t(std::atof(argv[2])) : 100000);
    return 0;
  }
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::size_t(std::atof(argv[i])));
  if (sizes.empty()) sizes = {100000, 1000000};
  for (std::size_t n : sizes) throughput(n);
  return 0;
}
