// The feedback stage on the GPU (feedback_gpu.cu) against the CPU driver (feedback.cpp): the same
// box of gas and stars, 20 global steps, then one block-step substep with an active list, on both
// backends; every particle's mass, velocity, u, O, Fe, sound speed and step end, and the SN energy.
//
// Bound 1e-10 relative: both backends run the same double-precision functions in the same order
// per particle (each receiver takes its shares in star order on both); they differ only where the
// device contracts a * b + c into an FMA (distances, kernel weights, the merger's velocity), a few
// ulp per operation over 20 steps. The neighbour sets are the same: the box's jittered lattice
// has no two gas particles at distances equal to within rounding from any star.
#ifdef MPSPH_HAVE_CUDA
#include "feedback/feedback_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "feedback_test_support.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "sfr_feedback_check.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

double rel_diff(double a, double b) {
  const double d = std::fabs(a - b);
  return d == 0.0 ? 0.0 : d / std::max(std::fabs(a), std::fabs(b));
}

double vec_diff(const Vec3d& a, const Vec3d& b) {
  const double d = std::sqrt(norm2(a - b));
  return d == 0.0 ? 0.0 : d / std::max(std::sqrt(norm2(a)), std::sqrt(norm2(b)));
}

void compare(ParticleStore& cpu, ParticleStore& gpu) {
  double worst = 0.0;
  std::size_t ti_differ = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    worst = std::max({worst, rel_diff(cpu.mass[i], gpu.mass[i]), vec_diff(cpu.vel[i], gpu.vel[i]),
                      vec_diff(cpu.vel0[i], gpu.vel0[i]), rel_diff(cpu.z_o[i], gpu.z_o[i]),
                      rel_diff(cpu.z_fe[i], gpu.z_fe[i])});
    if (cpu.type[i] == kGas)
      worst = std::max({worst, rel_diff(cpu.u[i], gpu.u[i]), rel_diff(cpu.u0[i], gpu.u0[i]),
                        rel_diff(cpu.csound[i], gpu.csound[i])});
    ti_differ += cpu.ti_end[i] != gpu.ti_end[i] || cpu.rung[i] != gpu.rung[i];
  }
  std::printf("feedback GPU vs CPU: largest relative difference %.3g\n", worst);
  CHECK(worst < 1e-10);
  CHECK(ti_differ == 0);
}

}  // namespace

TEST_CASE("feedback on the GPU gives the CPU's particles (global steps, then block steps)",
          "[feedback][gpu]") {
  const SspTable table{SspModel{}};
  const UnitSystem u = pc_msun_kms();
  const FeedbackKernParams kp = kern_params(table, u, 50);
  FeedbackBox b = make_feedback_box(20, 200.0, 40, 60.0, 0.004, 0.001, 0.006, 0.0012);
  ParticleStore cpu = b.s, gpu = b.s;
  for (std::size_t i = 0; i < gpu.size(); ++i)
    cpu.ti_begin[i] = gpu.ti_begin[i] = 0, cpu.ti_end[i] = gpu.ti_end[i] = kTicks;
  DeviceParticles d;
  d.upload(gpu);
  GpuFeedback g(table, 50);
  const double dt = 1.0;
  double e_cpu = 0.0, e_gpu = 0.0;
  for (int k = 1; k <= 20; ++k) {
    e_cpu += apply_feedback(cpu.view(), ActiveSet{}, b.box, kp, FeedbackTiming{}, k * dt,
                            dt / double(kTicks))
                 .energy;
    g.apply(d.view(), ActiveSet{}, b.box, kp, FeedbackTiming{}, k * dt, dt / double(kTicks));
    double e = 0.0;
    REQUIRE(cudaMemcpy(&e, g.device_injected(), sizeof(double), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    e_gpu -= e;
  }
  d.download(gpu);
  REQUIRE(e_cpu > 0.0);
  CHECK(rel_diff(e_cpu, e_gpu) < 1e-12);
  compare(cpu, gpu);

  // Block steps: the stars active at tick 5/8 of a 64-unit segment, the gas inactive on rung 0.
  const int64_t now = 5 * (kTicks / 8);
  std::vector<uint32_t> list;
  for (ParticleStore* s : {&cpu, &gpu})
    for (std::size_t i = 0; i < s->size(); ++i) {
      s->rung[i] = s->type[i] == kGas ? 0 : 6;
      s->ti_begin[i] = s->type[i] == kGas ? 0 : now - rung_ticks(6);
      s->ti_end[i] = s->type[i] == kGas ? kTicks : now;
      s->rung_wake[i] = 0;
    }
  for (std::size_t i = b.n_gas; i < cpu.size(); ++i) list.push_back(uint32_t(i));
  ActiveSet a;
  a.n = list.size();
  a.n_gas = 0;
  a.tick = now;
  a.index = list.data();
  const double tick_len = 64.0 / double(kTicks);
  const FeedbackStepResult r =
      apply_feedback(cpu.view(), a, b.box, kp, FeedbackTiming{}, 40.0, tick_len);
  REQUIRE(r.woken > 0);
  d.upload(gpu);
  uint32_t* dlist = nullptr;
  REQUIRE(cudaMalloc(&dlist, list.size() * sizeof(uint32_t)) == cudaSuccess);
  REQUIRE(cudaMemcpy(dlist, list.data(), list.size() * sizeof(uint32_t), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  a.index = dlist;
  g.apply(d.view(), a, b.box, kp, FeedbackTiming{}, 40.0, tick_len);
  d.download(gpu);
  cudaFree(dlist);
  compare(cpu, gpu);
}

// The SSP box of tests/feedback/ssp_box_validation.cpp to 45 Myr on both backends. The star's
// steps and releases do not depend on the gas (no gravity): its mass, the O and Fe it gave the
// gas and E_feedback agree to round-off (1e-12). The gas state follows the SPH forces, which the
// backends evaluate in a different order (GPU SPH forces within 5e-6 of the CPU, README), so the
// energies are compared to 1e-4 of E_total (measured: not yet, no GPU on the machine that wrote
// this test).
TEST_CASE("SSP box on the GPU: the star's release and E_feedback as on the CPU",
          "[feedback][gpu]") {
  const char* box = R"(
run: {t_end: 46.035, output_dir: unused, snapshot_times: [46.035], diagnostics_every: 1}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: ssp_box, n_side: 8, box_size: 2400, n_H: 0.1, temperature: 1.0e4, fe_h: -99,
        star_mass_msun: 1.0e4, star_age_myr: 0, star_metallicity: 0.02}
eos: {type: adiabatic}
gravity: {enabled: false}
timestep: {scheme: block, dt_max: 10.23, use_velocity: false}
feedback: {model: ssp}
)";
  struct Result {
    double m_star = 0, o_gas = 0, fe_gas = 0;
    std::vector<test::EnergyRow> rows;
  };
  auto run = [&](const std::string& device) {
    const std::string dir = test::scratch_dir("ssp_box_" + device);
    Simulation sim(test::run_options(dir, box, {}, device));
    REQUIRE(sim.run());
    const ParticleStore& s = sim.particles();
    Result r;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s.type[i] == kGas) {
        r.o_gas += s.mass[i] * s.z_o[i];
        r.fe_gas += s.mass[i] * s.z_fe[i];
      } else {
        r.m_star += s.mass[i];
      }
    }
    r.rows = test::read_energy(dir);
    return r;
  };
  const Result c = run("cpu"), g = run("gpu");
  std::printf("SSP box GPU vs CPU: star mass %.3g, gas O %.3g, Fe %.3g relative\n",
              rel_diff(c.m_star, g.m_star), rel_diff(c.o_gas, g.o_gas),
              rel_diff(c.fe_gas, g.fe_gas));
  CHECK(rel_diff(c.m_star, g.m_star) < 1e-12);
  CHECK(rel_diff(c.o_gas, g.o_gas) < 1e-12);
  CHECK(rel_diff(c.fe_gas, g.fe_gas) < 1e-12);
  REQUIRE(c.rows.size() == g.rows.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < c.rows.size(); ++k)
    worst = std::max(worst, std::fabs(c.rows[k].etot - g.rows[k].etot) / c.rows[0].etot);
  std::printf("SSP box GPU vs CPU: largest E_total difference %.3g of E_total\n", worst);
  CHECK(worst < 1e-4);
}

// sfr.csv's feedback column on the GPU backend (the CPU: ssp_box_validation.cpp): the account the
// step's one synchronisation brings back, written to sfr.csv as to energy.csv, and equal to the SN
// energy of the stars the GPU formed. (Which gas forms stars follows the SPH forces, which differ
// from the CPU's within round-off, so the stars are not compared with the CPU run's.)
TEST_CASE("sfr.csv on the GPU: the feedback energy is energy.csv's and the stars' SSP energy",
          "[feedback][starform][gpu]") {
  const std::string dir = test::scratch_dir("ssp_box_sfr_gpu");
  Simulation sim(test::run_options(dir, test::sfr_feedback_box(), {}, std::string("gpu")));
  REQUIRE(sim.run());
  CHECK(test::check_sfr_feedback_column(dir, sim.particles(), sim.time()) >= 10);
}

#endif  // MPSPH_HAVE_CUDA
