// Whole Evrard step (order, SPH, gravity, integration, time step) on the GPU backend, per stage,
// against the CPU (OpenMP) backend on the same machine, and the device memory per particle.
//
//   bench_step_gpu [--steps K] [--cpu-steps C] [--largest N] [N ...]    default: K = 5, C = 2,
//                                                                      N = 1e6
// GPU stage times are CUDA events around each stage of the step (the stream stays busy, so each
// interval is that stage's device time); the step is the median of K steps after two warm-up
// steps. The CPU backend runs C steps with all OpenMP threads (wall clock). --largest N runs one
// GPU step at N to show that it fits. Results: docs/PERFORMANCE.md, section "GPU SPH".
#include <cstdio>

#ifdef MPSPH_HAVE_CUDA
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_gpu_support.hpp"
#include "run/step_backend.hpp"
#include "setups/evrard.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;
using bench::check;
using bench::median;

namespace {

constexpr int kStages = 10;
const char* kStageNames[kStages] = {
    "predict",    "order",   "smoothing len", "density", "prepare force",
    "SPH forces", "gravity", "end force",     "correct", "time step (sync)"};

struct Setup {
  ParticleStore store;
  Box box;
  SphParams sph;
  EosParams eos;
  GravityParams grav;
  TimestepParams ts;
  explicit Setup(std::size_t n) {
    EvrardParams ep;
    ep.n_target = n;
    store = make_evrard(ep);
    grav.softening[0] = 0.01;
    ts.scheme = TimestepScheme::Global;  // the benchmark times global steps
  }
  // No modules (as `mpsph run setups/evrard.yaml`): the optional field groups stay on the host.
  StepContext context() { return StepContext{store, box, sph, eos, grav, ts, 1.0, {}, 0u}; }
};

void initial_forces(StepBackend& b) {
  b.order();
  b.smoothing_lengths();
  b.density();
  b.prepare_force();
  b.sph_forces();
  b.gravity();
  b.end_force();
}

// Runs one step; calls mark(k) after stage k (and mark(-1) before the first).
template <class Mark>
double step(StepBackend& b, double dt, Mark&& mark) {
  mark(-1);
  b.begin_segment(dt, true);  // the global scheme: one step, every particle on rung 0
  b.predict(kTicks);
  mark(0);
  b.order();
  mark(1);
  b.smoothing_lengths();
  mark(2);
  b.density();
  mark(3);
  b.prepare_force();
  mark(4);
  b.sph_forces();
  mark(5);
  b.gravity();
  mark(6);
  b.end_force();
  mark(7);
  b.correct(true);
  mark(8);
  const double next = b.timestep().dt;
  mark(9);
  return next;
}

struct GpuResult {
  std::vector<double> stage_ms;
  double step_ms;
  double bytes_per_particle;
  std::size_t n;
};

GpuResult run_gpu(std::size_t n_target, int steps) {
  std::size_t free0 = 0, total = 0;
  check(cudaMemGetInfo(&free0, &total), "cudaMemGetInfo");
  Setup s(n_target);
  auto b = make_gpu_backend(s.context());
  b->sync_from_host();
  initial_forces(*b);
  double dt = b->timestep().dt;
  cudaEvent_t ev[kStages + 1];
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  std::vector<std::vector<double>> per(kStages);
  std::vector<double> total_ms;
  for (int k = 0; k < steps + 2; ++k) {
    dt = step(*b, dt, [&](int m) { check(cudaEventRecord(ev[m + 1]), "record"); });
    check(cudaEventSynchronize(ev[kStages]), "sync");
    if (k < 2) continue;
    for (int m = 0; m < kStages; ++m) {
      float t = 0;
      check(cudaEventElapsedTime(&t, ev[m], ev[m + 1]), "elapsed");
      per[m].push_back(t);
    }
    float t = 0;
    check(cudaEventElapsedTime(&t, ev[0], ev[kStages]), "elapsed");
    total_ms.push_back(t);
  }
  std::size_t free1 = 0;
  check(cudaMemGetInfo(&free1, &total), "cudaMemGetInfo");
  for (auto& e : ev) cudaEventDestroy(e);
  std::printf("%s", b->timing_notes(0).c_str());  // the parts of the device memory
  GpuResult r;
  for (int m = 0; m < kStages; ++m) r.stage_ms.push_back(median(per[m]));
  r.step_ms = median(total_ms);
  r.n = s.store.size();
  r.bytes_per_particle = double(free0 - free1) / double(r.n);
  return r;
}

std::vector<double> run_cpu(std::size_t n_target, int steps) {
  Setup s(n_target);
  auto b = make_cpu_backend(s.context());
  b->sync_from_host();
  initial_forces(*b);
  double dt = b->timestep().dt;
  std::vector<double> sum(kStages + 1, 0.0);
  auto last = std::chrono::steady_clock::now();
  auto t_step = last;
  for (int k = 0; k < steps; ++k) {
    dt = step(*b, dt, [&](int m) {
      const auto now = std::chrono::steady_clock::now();
      if (m >= 0)
        sum[m] += 1e3 * std::chrono::duration<double>(now - last).count();
      else
        t_step = now;
      if (m == kStages - 1)
        sum[kStages] += 1e3 * std::chrono::duration<double>(now - t_step).count();
      last = now;
    });
  }
  for (double& x : sum) x /= steps;
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 5, cpu_steps = 2;
  std::size_t largest = 0;
  std::vector<std::size_t> sizes;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--steps" && k + 1 < argc)
      steps = std::max(1, std::atoi(argv[++k]));
    else if (a == "--cpu-steps" && k + 1 < argc)
      cpu_steps = std::max(0, std::atoi(argv[++k]));
    else if (a == "--largest" && k + 1 < argc)
      largest = std::size_t(std::atof(argv[++k]));
    else
      sizes.push_back(std::size_t(std::atof(a.c_str())));
  }
  if (sizes.empty()) sizes = {1000000};
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf(
      "Whole Evrard step (tree gravity, softening 0.01), GPU %s vs CPU backend with %d "
      "OpenMP threads; ms per step (GPU: median of %d, CUDA events)\n",
      prop.name, omp_get_max_threads(), steps);
  for (const std::size_t n : sizes) {
    const GpuResult g = run_gpu(n, steps);
    const std::vector<double> c = cpu_steps > 0 ? run_cpu(n, cpu_steps) : std::vector<double>();
    std::printf(
        "N = %zu: GPU %.2f ms/step (%.3g particle updates/s), device memory %.0f B per "
        "particle",
        g.n, g.step_ms, double(g.n) / (1e-3 * g.step_ms), g.bytes_per_particle);
    if (!c.empty())
      std::printf("; CPU %.1f ms/step: GPU/CPU speed-up %.1fx", c[kStages], c[kStages] / g.step_ms);
    std::printf("\n%-18s %10s %10s\n", "stage", "GPU ms", "CPU ms");
    for (int m = 0; m < kStages; ++m)
      std::printf("%-18s %10.3f %10.1f\n", kStageNames[m], g.stage_ms[m], c.empty() ? 0.0 : c[m]);
    std::fflush(stdout);
    if (n == sizes.front()) {
      std::size_t free_b = 0, total_b = 0;
      check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
      std::printf("largest Evrard N on this GPU at %.0f B per particle: %.3g (of %.1f GiB)\n",
                  g.bytes_per_particle, 0.97 * double(total_b) / g.bytes_per_particle,
                  double(total_b) / (1u << 30));
    }
  }
  if (largest > 0) {
    const GpuResult g = run_gpu(largest, 1);
    std::printf("one step at N = %zu: %.1f ms (%.3g updates/s), %.0f B per particle\n", g.n,
                g.step_ms, double(g.n) / (1e-3 * g.step_ms), g.bytes_per_particle);
  }
  return 0;
}
#else
int main() {
  std::printf("bench_step_gpu: this build has no CUDA backend\n");
  return 0;
}
#endif
