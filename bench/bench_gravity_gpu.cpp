// GPU gravity throughput (results in docs/PERFORMANCE.md). CUDA events after warm-up, medians of
// repeats.
//
//   bench_gravity_gpu                 direct kernel N = 2^12 .. 2^20 (with and without j-split),
//                                     tree N = 1e6, 1e7, 3e7 on Plummer and Hernquist spheres
//   bench_gravity_gpu direct|tree     one part only
//
// Direct: interactions/s = N^2 / kernel time (pair kernel plus split reduction), and the share of
// the FP32 peak at the 20-flop-per-interaction convention (64 TFLOP/s FMA rate on the H200).
// Tree: each stage timed (keys+sort, build, moments, walk); particles/s = N / total; the accuracy
// of the same call on 5000 random targets against the double-precision direct sum.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "run/device.hpp"

#ifdef MPSPH_HAVE_CUDA
#include "bench_gpu_support.hpp"
#include "core/device_particles.hpp"
#include "gravity/gravity_gpu.hpp"
#include "setups/hernquist.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;
using bench::median;

namespace {

constexpr double kEps = 0.01;
constexpr double kPeakFlops = 64e12;
constexpr double kFlopsPerInteraction = 20.0;

void upload(DeviceParticles& d, const ParticleStore& s) {
  d.upload(s, {Field::pos, Field::mass, Field::type, Field::acc_grav, Field::pot});
}

void bench_direct() {
  std::printf("\n== direct kernel (uniform Plummer softening, potential included)\n");
  std::printf("%9s %8s %7s %10s %13s %8s\n", "N", "j-split", "ranges", "ms", "interact/s", "%FP32");
  GravityParams p;
  p.softening.fill(kEps);
  for (int e = 12; e <= 20; ++e) {
    const std::size_t n = std::size_t(1) << e;
    const ParticleStore s = make_plummer(n, 1);
    DeviceParticles d;
    upload(d, s);
    for (bool split : {false, true}) {
      GpuDirectGravity g;
      const int reps = e <= 16 ? 21 : (e <= 18 ? 7 : 5);
      for (int w = 0; w < 2; ++w) g.compute(d.view(), p, 1.0, split);
      std::vector<double> ms;
      for (int r = 0; r < reps; ++r) {
        g.compute(d.view(), p, 1.0, split);
        ms.push_back(g.last_kernel_ms());
      }
      const double t = median(ms);
      const double rate = double(n) * double(n) / (t * 1e-3);
      std::printf("%9zu %8s %7d %10.3f %13.3e %7.1f%%\n", n, split ? "yes" : "no", g.last_splits(),
                  t, rate, 100.0 * rate * kFlopsPerInteraction / kPeakFlops);
      std::fflush(stdout);
    }
  }
}

struct Errors {
  double median, p99, p999;
};

// The GPU result is downloaded into the caller's store (same size: only acc_grav is copied).
Errors sample_errors(const DeviceParticles& d, const GravityParams& p, std::size_t nt,
                     ParticleStore& out) {
  d.download(out, {Field::acc_grav});
  std::vector<Vec3d> ref(nt);
  std::vector<double> ref_pot(nt);
  direct_gravity_double_gpu(d.view(), p, 1.0, 0, nt, ref.data(), ref_pot.data());
  std::vector<double> e(nt);
  for (std::size_t i = 0; i < nt; ++i) e[i] = norm(out.acc_grav[i] - ref[i]) / norm(ref[i]);
  std::sort(e.begin(), e.end());
  return {e[nt / 2], e[nt * 99 / 100], e[nt * 999 / 1000]};
}

void bench_tree_one(const char* model, ParticleStore& s, const GravityParams& p) {
  char setting[48];
  if (p.criterion == OpeningCriterion::Relative) {
    // "tm-": no theta_max cap (the relative test alone, as before 2026-11-26).
    if (p.theta_max >= 100.0)
      std::snprintf(setting, sizeof(setting), "rel%.4f tm- L%d G%d", p.rel_tol, p.leaf_size,
                    p.group_size);
    else
      std::snprintf(setting, sizeof(setting), "rel%.4f tm%.1f L%d G%d", p.rel_tol, p.theta_max,
                    p.leaf_size, p.group_size);
  } else {
    std::snprintf(setting, sizeof(setting), "th%.2f L%d G%d", p.theta, p.leaf_size, p.group_size);
  }
  const std::size_t n = s.size();
  DeviceParticles d;
  upload(d, s);
  GpuGravity g;
  // Two untimed calls: buffers sized, code loaded, |a_old| present for the relative criterion.
  g.compute(d.view(), p, 1.0);
  g.compute(d.view(), p, 1.0);
  const int reps = n <= 10000000 ? 5 : 3;
  std::vector<double> ks, bu, mo, wa, to;
  for (int r = 0; r < reps; ++r) {
    g.compute(d.view(), p, 1.0);
    const GpuGravityTimings t = g.last_timings();
    ks.push_back(t.keys_sort_ms), bu.push_back(t.build_ms), mo.push_back(t.moments_ms);
    wa.push_back(t.walk_ms), to.push_back(t.total_ms());
  }
  const TreeWalkStats st = g.last_walk_stats();
  const Errors e = sample_errors(d, p, 5000, s);
  const double total = median(to);
  std::printf(
      "%-9s %9zu %-18s %7.2f %7.2f %7.2f %8.2f %8.2f %9.1f %6.0f %6.0f %5.1f %8.1e "
      "%8.1e %8.1e\n",
      model, n, setting, median(ks), median(bu), median(mo), median(wa), total,
      double(n) / (total * 1e-3) / 1e6, double(st.node_interactions) / double(n),
      double(st.particle_interactions) / double(n), double(n) / double(st.groups), e.median, e.p99,
      e.p999);
  // Besides the solver's own buffers, gravity reads pos, mass, type and writes acc_grav, pot of
  // the particle store: 65 bytes per particle.
  std::printf(
      "          device memory: gravity solver %.1f bytes/particle (%zu bytes) + 65 "
      "bytes/particle of store fields\n",
      double(g.device_bytes()) / double(n), g.device_bytes());
  std::fflush(stdout);
}

void bench_tree() {
  std::printf("\n== tree (times in ms, medians; errors on 5000 random targets vs double direct)\n");
  std::printf("%-9s %9s %-18s %7s %7s %7s %8s %8s %9s %6s %6s %5s %8s %8s %8s\n", "model", "N",
              "setting", "sort", "build", "moments", "walk", "total", "Mpart/s", "node/p", "part/p",
              "grp", "median", "p99", "p99.9");
  for (std::size_t n : {std::size_t(1000000), std::size_t(10000000), std::size_t(30000000)}) {
    for (int model = 0; model < 2; ++model) {
      HernquistParams hp;  // truncated at 100 a: the Morton grid must resolve the cusp
      hp.n = n;
      hp.seed = 3;
      hp.r_max = 100.0;
      ParticleStore s = model == 0 ? make_plummer(n, 1) : make_hernquist(hp);
      const char* name = model == 0 ? "Plummer" : "Hernquist";
      GravityParams p;  // the defaults of gravity_params.hpp
      p.softening.fill(kEps);
      bench_tree_one(name, s, p);
      if (n == 10000000) {
        // Other settings against the same accuracy target (p99 <= 1e-3): the earlier defaults
        // (theta 0.35, leaf 16, group 32), wider opening angles, and the GADGET relative
        // criterion (second call on, |a_old| from the first).
        GravityParams q = p;
        q.theta = 0.35, q.leaf_size = 16, q.group_size = 32;
        bench_tree_one(name, s, q);
        for (double theta : {0.5, 0.6}) {
          p.theta = theta;
          bench_tree_one(name, s, p);
        }
        p.theta = GravityParams{}.theta;
        p.criterion = OpeningCriterion::Relative;
        for (double tol : {0.001, 0.0025, 0.004, 0.006, 0.01}) {
          p.rel_tol = tol;
          bench_tree_one(name, s, p);
        }
        // The default tolerance with a looser cap and without one (the relative test alone).
        p.rel_tol = GravityParams{}.rel_tol;
        for (double tm : {1.5, 100.0}) {
          p.theta_max = tm;
          bench_tree_one(name, s, p);
        }
      }
    }
  }
}

}  // namespace
#endif  // MPSPH_HAVE_CUDA

int main(int argc, char** argv) {
  const mpsph::GpuProbe gpu = mpsph::probe_gpu();
  if (!gpu.available) {
    std::printf("bench_gravity_gpu: no GPU: %s\n", gpu.reason.c_str());
    return 0;
  }
#ifdef MPSPH_HAVE_CUDA
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  std::printf("bench_gravity_gpu on %s, %s\n", gpu.name.c_str(), date);
  const bool all = argc < 2;
  if (all || std::strcmp(argv[1], "direct") == 0) bench_direct();
  if (all || std::strcmp(argv[1], "tree") == 0) bench_tree();
#else
  (void)argc, (void)argv;
#endif
  return 0;
}
