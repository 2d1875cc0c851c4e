// GPU SPH pass throughput: smoothing lengths + density + prepare-force + forces on the device,
// particle updates per second, for a glass-like periodic box (jittered cubic lattice, random
// velocities) and the Evrard sphere: stored leaf lists without and with the scan restricted to
// the reachable groups of 8 ("+g", the default), and walking in every pass with groups.
//
//   bench_sph_gpu [--repeat R] [N ...]      default: R = 5, N = 1e6 1e7
// Times are CUDA-event medians of R repeats after one warm-up pass (which also leaves the h of
// the previous pass as the search's first guess, as in a run). Particles are in the device order
// stage's Morton order. Results: docs/PERFORMANCE.md, section "GPU SPH".
#include <cstdio>

#ifdef MPSPH_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_gpu_support.hpp"
#include "bench_sets.hpp"
#include "core/device_particles.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/rng.hpp"
#include "setups/evrard.hpp"
#include "sph/sph_gpu.hpp"

using namespace mpsph;
using bench::check;
using bench::median;

namespace {

struct Events {
  cudaEvent_t e[6];
  Events() {
    for (auto& x : e) check(cudaEventCreate(&x), "cudaEventCreate");
  }
  ~Events() {
    for (auto& x : e) cudaEventDestroy(x);
  }
  float ms(int a, int b) const {
    float t = 0;
    check(cudaEventElapsedTime(&t, e[a], e[b]), "cudaEventElapsedTime");
    return t;
  }
};

void run_set(const char* name, ParticleStore s, const Box& box, int repeat) {
  const SphParams sp;
  const EosParams eos;
  std::size_t free0 = 0, total = 0;
  check(cudaMemGetInfo(&free0, &total), "cudaMemGetInfo");
  DeviceParticles d;
  d.upload(s);
  DeviceOrder order;
  GpuSph sph;
  Events ev;
  // Order once (Morton), and one untimed pass of every stage.
  order.sort(d, box, false);
  sph.smoothing_lengths(d.view(), box, sp);
  sph.density(d.view(), box, sp);
  sph.prepare_force(d.view(), eos, sp);
  sph.forces(d.view(), box, sp);
  sph.throw_if_errors(sp.n_neighbours);
  const std::size_t n = d.view().n_gas;
  int32_t* counts = nullptr;
  check(cudaMalloc(&counts, n * sizeof(int32_t)), "cudaMalloc");
  sph.pair_counts(d.view(), box, counts);
  std::vector<int32_t> hc(n);
  check(cudaMemcpy(hc.data(), counts, n * sizeof(int32_t), cudaMemcpyDeviceToHost), "copy");
  cudaFree(counts);
  double pairs = 0;
  for (int32_t c : hc) pairs += c;
  pairs /= double(n);

  struct Variant {
    GpuNeighbourMode mode;
    bool groups;
    const char* label;
  };
  const Variant variants[] = {{GpuNeighbourMode::LeafLists, false, "lists"},
                              {GpuNeighbourMode::Walk, true, "walk+g"},
                              {GpuNeighbourMode::LeafLists, true, "lists+g"}};
  for (const Variant& var : variants) {
    sph.set_mode(var.mode);
    sph.set_sub_boxes(var.groups);
    std::vector<double> t_order, t_h, t_rho, t_prep, t_force;
    for (int r = 0; r < repeat + 1; ++r) {
      check(cudaEventRecord(ev.e[0]), "record");
      order.sort(d, box, false);
      check(cudaEventRecord(ev.e[1]), "record");
      sph.smoothing_lengths(d.view(), box, sp);
      check(cudaEventRecord(ev.e[2]), "record");
      sph.density(d.view(), box, sp);
      check(cudaEventRecord(ev.e[3]), "record");
      sph.prepare_force(d.view(), eos, sp);
      check(cudaEventRecord(ev.e[4]), "record");
      sph.forces(d.view(), box, sp);
      check(cudaEventRecord(ev.e[5]), "record");
      check(cudaEventSynchronize(ev.e[5]), "sync");
      if (r == 0) continue;  // warm-up
      t_order.push_back(ev.ms(0, 1));
      t_h.push_back(ev.ms(1, 2));
      t_rho.push_back(ev.ms(2, 3));
      t_prep.push_back(ev.ms(3, 4));
      t_force.push_back(ev.ms(4, 5));
    }
    sph.throw_if_errors(sp.n_neighbours);
    std::size_t free1 = 0;
    check(cudaMemGetInfo(&free1, &total), "cudaMemGetInfo");
    const double h = median(t_h), rho = median(t_rho), prep = median(t_prep),
                 force = median(t_force);
    const double pass = h + rho + prep + force;
    std::printf(
        "%-8s %10zu %-7s | %7.2f | %7.2f %7.2f %7.2f %7.2f | %8.2f | %9.1f | %6.1f | %6.0f\n", name,
        n, var.label, median(t_order), h, rho, prep, force, pass, 1e-3 * double(n) / pass, pairs,
        double(free0 - free1) / double(n));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::vector<long> sizes;
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) == "--repeat" && k + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++k]));
    else
      sizes.push_back(std::atol(argv[k]));
  }
  if (sizes.empty()) sizes = {1000000, 10000000};
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("GPU SPH pass, %s, N_B = %d, median of %d (CUDA events), times in ms\n", prop.name,
              SphParams{}.n_neighbours, repeat);
  std::printf("%-8s %10s %-7s | %7s | %7s %7s %7s %7s | %8s | %9s | %6s | %6s\n", "set", "N",
              "mode", "order", "h", "density", "prepare", "force", "SPH pass", "M upd/s", "pairs",
              "B/part");
  Box periodic;
  periodic.periodic = true;
  periodic.size = {1, 1, 1};
  for (const long n : sizes) {
    run_set("glass", bench::glass_like(int(std::lround(std::cbrt(double(n))))), periodic, repeat);
    EvrardParams ep;
    ep.n_target = std::size_t(n);
    run_set("evrard", make_evrard(ep), Box{}, repeat);
  }
  return 0;
}
#else
int main() {
  std::printf("bench_sph_gpu: this build has no CUDA backend\n");
  return 0;
}
#endif
