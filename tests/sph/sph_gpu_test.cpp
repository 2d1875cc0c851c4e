// GPU SPH stages against the CPU drivers and brute force, on the same particles: smoothing
// lengths, the pair sets of the density and force passes, density, pressure accelerations, du/dt.
#ifdef MPSPH_HAVE_CUDA
#include "sph/sph_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "core/particle_order.hpp"
#include "setups/evrard.hpp"
#include "setups/sod.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"
#include "sph_test_setup.hpp"

using namespace mpsph;

namespace {

struct Case {
  std::string name;
  ParticleStore s;
  Box box;
};

// Evrard sphere (open box, rho ~ 1/r), a few 1e4 particles, with random velocities so that
// viscosity, div v, curl v and du/dt are all exercised.
Case evrard_case() {
  EvrardParams p;
  p.n_target = 20000;
  Case c{"evrard", make_evrard(p), Box{}};
  test::random_velocities(c.s, 0.3, 11);
  return c;
}

// Sod tube: periodic box, two lattices (ties in every neighbour shell), density jump 8.
Case sod_case() {
  SodParams p;
  p.nx_left = 48;
  p.ny_left = 14;
  p.glass = false;  // the lattices: ties in every neighbour shell
  SodSetup st = make_sod(p);
  Case c{"sod", std::move(st.particles), st.box};
  test::random_velocities(c.s, 0.1, 12);
  return c;
}

// Strongly clustered (h spans decades, pairs with h_j >> h_i), open box.
Case clustered_case() {
  Case c{"clustered", test::gas_store(test::clustered_points(12000, {0, 0, 0}, 1.0, 13), 1e-4),
         Box{}};
  test::random_velocities(c.s, 1.0, 14);
  return c;
}

// Uniform random points in a periodic box, every second one left outside it (minimum image).
Case periodic_case() {
  const Box box = test::periodic_box({-1, 0, 0}, {2, 1, 1.5});
  Case c{"periodic",
         test::gas_store(test::uniform_points(12000, {-1, 0, 0}, {2, 1, 1.5}, 15), 1e-4), box};
  test::wrap_every_second(c.s, box);
  for (std::size_t i = 1; i < c.s.size(); i += 4) c.s.pos[i].x += 2.0;  // an outside image
  test::random_velocities(c.s, 1.0, 16);
  return c;
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  v.push_back(evrard_case());
  v.push_back(sod_case());
  v.push_back(clustered_case());
  v.push_back(periodic_case());
  for (Case& c : v) order_particles(c.s, c.box);
  return v;
}

// CPU reference: every SPH stage of the OpenMP backend.
ParticleStore cpu_stages(const Case& c, const SphParams& sp, const EosParams& eos) {
  ParticleStore s = c.s;
  SphNeighbours nb;
  compute_smoothing_lengths(s, c.box, sp, nb);
  compute_density(s, c.box, sp, nb);
  prepare_force(s, eos, sp);
  compute_sph_forces(s, c.box, sp, nb);
  return s;
}

// The GPU density, prepare-force and force stages on case c, with the CPU's h as input so that
// both backends see identical pair sets (h itself is tested on its own).
ParticleStore gpu_stages(const Case& c, const ParticleStore& cpu, const SphParams& sp,
                         const EosParams& eos,
                         GpuNeighbourMode mode = GpuNeighbourMode::LeafLists) {
  DeviceParticles d;
  d.upload(c.s);
  d.upload(cpu, {Field::h});
  GpuSph sph;
  sph.set_mode(mode);
  sph.density(d.view(), c.box, sp);
  sph.prepare_force(d.view(), eos, sp);
  sph.forces(d.view(), c.box, sp);
  sph.throw_if_errors(sp.n_neighbours);
  ParticleStore g = c.s;
  d.download(g);
  return g;
}

double rms(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return x.empty() ? 0.0 : std::sqrt(s / double(x.size()));
}

// max_i |a_i - b_i| / max(|b_i|, rms(b)): relative where b_i is typical, and relative to the
// typical size where b_i nearly cancels (a lattice in equilibrium has b_i ~ 0 by symmetry).
double max_scaled_diff(const std::vector<double>& a, const std::vector<double>& b) {
  const double r = rms(b);
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::fabs(a[i] - b[i]) / std::max(std::fabs(b[i]), r));
  return m;
}

}  // namespace

TEST_CASE("GPU smoothing lengths equal the CPU kd-tree's (exact N_B rule)", "[gpu][sph]") {
  SphParams sp;
  for (Case& c : all_cases()) {
    INFO(c.name);
    const ParticleStore cpu = cpu_stages(c, sp, EosParams{});
    DeviceParticles d;
    d.upload(c.s);
    GpuSph sph;
    sph.smoothing_lengths(d.view(), c.box, sp);
    sph.throw_if_errors(sp.n_neighbours);
    ParticleStore g = c.s;
    d.download(g, {Field::h, Field::nngb});
    const std::size_t n = g.n_gas();
    std::size_t close = 0;
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double rel = std::fabs(double(g.h[i]) - double(cpu.h[i])) / double(cpu.h[i]);
      close += rel < 1e-5;
      worst = std::max(worst, rel);
    }
    // Brute force: nngb is the true count inside 2h, and at least N_B (exactly N_B unless ties).
    std::vector<int> bad(n, 0);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) {
      const int count = test::brute_force_count(g, std::size_t(i), c.box);
      bad[i] = count != g.nngb[i] || count < sp.n_neighbours;
    }
    std::size_t n_bad = 0, n_exact = 0;
    for (std::size_t i = 0; i < n; ++i) n_bad += bad[i], n_exact += g.nngb[i] == sp.n_neighbours;
    std::printf(
        "[gpu sph] %-9s N=%zu: h within 1e-5 of CPU: %.5f%% (max rel diff %.3g); "
        "nngb == N_B for %.2f%%\n",
        c.name.c_str(), n, 100.0 * double(close) / double(n), worst,
        100.0 * double(n_exact) / double(n));
    // Issue bound: >= 99.9% within 1e-5 (both evaluate the same smoothing_length_between on the
    // same exact double distances, so differences can only come from ties).
    CHECK(double(close) >= 0.999 * double(n));
    CHECK(n_bad == 0);
  }
}

TEST_CASE("GPU pair search finds every pair r_ij < h_i + h_j (brute force)", "[gpu][sph]") {
  SphParams sp;
  for (GpuNeighbourMode mode : {GpuNeighbourMode::Walk, GpuNeighbourMode::LeafLists}) {
    for (Case& c : all_cases()) {
      INFO(c.name << (mode == GpuNeighbourMode::Walk ? " walk" : " leaf lists"));
      const ParticleStore cpu = cpu_stages(c, sp, EosParams{});
      DeviceParticles d;
      d.upload(cpu);
      GpuSph sph;
      sph.set_mode(mode);
      sph.density(d.view(), c.box, sp);
      const std::size_t n = cpu.n_gas();
      int32_t* dev_count = nullptr;
      REQUIRE(cudaMalloc(&dev_count, n * sizeof(int32_t)) == cudaSuccess);
      sph.pair_counts(d.view(), c.box, dev_count);
      std::vector<int32_t> count(n);
      REQUIRE(cudaMemcpy(count.data(), dev_count, n * sizeof(int32_t), cudaMemcpyDeviceToHost) ==
              cudaSuccess);
      cudaFree(dev_count);
      std::vector<int> bad(n, 0);
#pragma omp parallel for schedule(dynamic, 64)
      for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) {
        int ref = 0;
        for (std::size_t j = 0; j < n; ++j) {
          if (j == std::size_t(i)) continue;
          const double hs = double(cpu.h[i]) + double(cpu.h[j]);
          ref += test::dist2(cpu, std::size_t(i), j, c.box) < hs * hs;
        }
        bad[i] = ref != count[i];
      }
      std::size_t n_bad = 0, pairs = 0;
      for (std::size_t i = 0; i < n; ++i) n_bad += bad[i], pairs += std::size_t(count[i]);
      std::printf("[gpu sph] %-9s pairs per particle %.2f, mismatches %zu\n", c.name.c_str(),
                  double(pairs) / double(n), n_bad);
      // Exact: both sides use the same double distance and the same test.
      CHECK(n_bad == 0);
    }
  }
}

TEST_CASE("GPU density, pressure accelerations and du/dt agree with the CPU backend",
          "[gpu][sph]") {
  SphParams sp;
  EosParams eos;
  for (GpuNeighbourMode mode : {GpuNeighbourMode::Walk, GpuNeighbourMode::LeafLists}) {
    for (Case& c : all_cases()) {
      INFO(c.name << (mode == GpuNeighbourMode::Walk ? " walk" : " leaf lists"));
      const ParticleStore cpu = cpu_stages(c, sp, eos);
      const ParticleStore g = gpu_stages(c, cpu, sp, eos, mode);
      const std::size_t n = g.n_gas();
      std::vector<double> rho_g(n), rho_c(n), du_g(n), du_c(n), divv_g(n), divv_c(n);
      std::vector<double> a_g(3 * n), a_c(3 * n);
      double rho_rel = 0;
      for (std::size_t i = 0; i < n; ++i) {
        rho_g[i] = g.rho[i], rho_c[i] = cpu.rho[i];
        rho_rel = std::max(rho_rel, std::fabs(rho_g[i] - rho_c[i]) / rho_c[i]);
        du_g[i] = g.dudt[i], du_c[i] = cpu.dudt[i];
        divv_g[i] = g.divv[i], divv_c[i] = cpu.divv[i];
        a_g[3 * i] = g.acc[i].x, a_g[3 * i + 1] = g.acc[i].y, a_g[3 * i + 2] = g.acc[i].z;
        a_c[3 * i] = cpu.acc[i].x, a_c[3 * i + 1] = cpu.acc[i].y, a_c[3 * i + 2] = cpu.acc[i].z;
      }
      const double acc_d = max_scaled_diff(a_g, a_c), du_d = max_scaled_diff(du_g, du_c),
                   divv_d = max_scaled_diff(divv_g, divv_c);
      std::printf("[gpu sph] %-9s %s: max rel diff rho %.3g, acc %.3g, du/dt %.3g, div v %.3g\n",
                  c.name.c_str(), mode == GpuNeighbourMode::Walk ? "walk" : "lists", rho_rel, acc_d,
                  du_d, divv_d);
      // Bound 1e-4 (issue): the float pair terms are the same functions on the same pairs; they
      // differ only by fused multiply-adds on the GPU (a few ulp, ~1e-7 each) and by the order of
      // the float density sum (~60 terms: <= 60 x 6e-8 = 4e-6). Force sums are in double; where
      // they cancel the bound is taken relative to the rms over particles.
      CHECK(rho_rel < 1e-4);
      CHECK(acc_d < 1e-4);
      CHECK(du_d < 1e-4);
      CHECK(divv_d < 1e-3);  // a float sum that cancels: ~60 terms x 6e-8 x (|term| / rms)
    }
  }
}

TEST_CASE("GPU EOS stage and forces agree with the CPU backend for the non-adiabatic EOSs",
          "[gpu][sph][eos]") {
  // The EOS parameters put the breaks inside each case's density range, so every branch of the
  // barotropic and piecewise laws is evaluated: the Evrard sphere spans rho ~ 0.05 ... 50, the
  // Sod tube rho ~ 0.1 ... 1.
  SphParams sp;
  std::vector<Case> cases;
  cases.push_back(evrard_case());
  cases.push_back(sod_case());
  for (Case& c : cases) order_particles(c.s, c.box);
  for (Case& c : cases) {
    const bool evrard = c.name == "evrard";
    EosParams iso, baro, piece;
    iso.kind = EosKind::Isothermal;
    iso.sound_speed = 0.3;
    baro = iso;
    baro.kind = EosKind::Barotropic;
    baro.rho_crit = evrard ? 1.0 : 0.3;
    piece = iso;
    piece.kind = EosKind::Piecewise;
    piece.rho_1 = evrard ? 0.3 : 0.15;
    piece.rho_2 = evrard ? 3.0 : 0.3;
    piece.rho_3 = evrard ? 10.0 : 0.6;
    for (const EosParams& eos : {iso, baro, piece}) {
      INFO(c.name << " eos " << eos_type_name(eos.kind));
      const ParticleStore cpu = cpu_stages(c, sp, eos);
      const ParticleStore g = gpu_stages(c, cpu, sp, eos);
      const std::size_t n = g.n_gas();
      std::vector<double> a_g(3 * n), a_c(3 * n), du_g(n), du_c(n);
      double p_rel = 0, c_rel = 0, u_rel = 0, vsig_rel = 0, pu_rel = 0;
      for (std::size_t i = 0; i < n; ++i) {
        p_rel =
            std::max(p_rel, std::fabs(double(g.pressure[i]) - cpu.pressure[i]) / cpu.pressure[i]);
        c_rel = std::max(c_rel, std::fabs(double(g.csound[i]) - cpu.csound[i]) / cpu.csound[i]);
        u_rel = std::max(u_rel, std::fabs(g.u[i] - cpu.u[i]) / cpu.u[i]);
        vsig_rel = std::max(vsig_rel, std::fabs(double(g.vsig[i]) - cpu.vsig[i]) / cpu.vsig[i]);
        // u was set from the EOS on the device: P = (gamma - 1) rho u.
        pu_rel = std::max(pu_rel, std::fabs((eos.gamma - 1.0) * g.rho[i] * g.u[i] - g.pressure[i]) /
                                      g.pressure[i]);
        du_g[i] = g.dudt[i], du_c[i] = cpu.dudt[i];
        a_g[3 * i] = g.acc[i].x, a_g[3 * i + 1] = g.acc[i].y, a_g[3 * i + 2] = g.acc[i].z;
        a_c[3 * i] = cpu.acc[i].x, a_c[3 * i + 1] = cpu.acc[i].y, a_c[3 * i + 2] = cpu.acc[i].z;
      }
      const double acc_d = max_scaled_diff(a_g, a_c), du_d = max_scaled_diff(du_g, du_c);
      std::printf(
          "[gpu sph] %-9s %-10s: max rel diff P %.3g, c %.3g, u %.3g, vsig %.3g, acc %.3g, "
          "du/dt %.3g; |P - (gamma-1) rho u|/P %.3g\n",
          c.name.c_str(), eos_type_name(eos.kind), p_rel, c_rel, u_rel, vsig_rel, acc_d, du_d,
          pu_rel);
      // Bounds as in the adiabatic test above (1e-4): the same functions on the same pairs, rho
      // differing by float summation order only (<= 4e-6), which P ~ rho^eta (eta <= 5/3) and
      // c ~ rho^((eta-1)/2) carry over at most 5/3-fold.
      CHECK(p_rel < 1e-4);
      CHECK(c_rel < 1e-4);
      CHECK(u_rel < 1e-4);
      CHECK(vsig_rel < 1e-4);
      CHECK(acc_d < 1e-4);
      CHECK(du_d < 1e-4);
      // P is stored in float, u in double: float rounding of P and rho (~1.2e-7), hence 1e-6.
      CHECK(pu_rel < 1e-6);
    }
  }
}

TEST_CASE("GPU SPH reports a neighbour search that reaches half a periodic box", "[gpu][sph]") {
  // 60 particles in a periodic box with N_B = 50: the 51st neighbour lies beyond half the box.
  const Box box = test::periodic_box({0, 0, 0}, {1, 1, 1});
  ParticleStore s = test::gas_store(test::uniform_points(60, {0, 0, 0}, {1, 1, 1}, 3), 1.0);
  DeviceParticles d;
  d.upload(s);
  GpuSph sph;
  SphParams sp;
  sph.smoothing_lengths(d.view(), box, sp);
  CHECK_THROWS_AS(sph.throw_if_errors(sp.n_neighbours), Error);
  sph.throw_if_errors(sp.n_neighbours);  // cleared after reporting
}
#endif
