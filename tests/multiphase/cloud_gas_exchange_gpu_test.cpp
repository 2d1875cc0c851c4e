// The cloud <-> gas coupling on the GPU against the CPU driver: the same clouds evaporate,
// condense, turn back into gas or vanish, with the same masses, velocities and energies. The CUDA
// driver is compiled without fused multiply-add (CMakeLists.txt) and calls the same functions in
// the same order per particle, so types must agree exactly and values to a few ulp (std::pow and
// std::sqrt of the device may differ from the host's in the last bit: 1e-13 relative); the accounts
// differ by the order of their sums (1e-12). The whole multiphase box then runs on both backends:
// the GPU conserves mass, momentum and metals to 1e-12 as the CPU does.
#ifdef MPSPH_HAVE_CUDA
#include "multiphase/cloud_gas_exchange_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/device_particles.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"
#include "multiphase/cloud_gas_exchange.hpp"
#include "multiphase/conserved_totals.hpp"
#include "multiphase/energy_column.hpp"
#include "multiphase/sticky_clouds.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

namespace {

const UnitSystem kUnits = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);

double rel_diff(double a, double b) {
  const double d = std::fabs(a - b);
  return d == 0.0 ? 0.0 : d / std::max(std::fabs(a), std::fabs(b));
}

// n_gas gas particles uniformly random in a periodic box of edge L pc, n_H ~ 0.1 cm^-3, half of
// them hot (1e6..1e7 K), half warm (1e4 K, where clouds condense), velocities ~20 km/s; then
// n_cl clouds of 0.2 .. 20 gas masses (some below half the gas mass: they turn back into gas).
ParticleStore gas_and_clouds(std::size_t n_gas, std::size_t n_cl, double L,
                             const StickyCloudsModel& m) {
  ParticleStore s;
  s.resize(n_gas + n_cl);
  const double rho = 0.1 / (0.7 * m.exchange.nH_per_rho);
  const double m_gas = rho * L * L * L / double(n_gas);
  for (std::size_t i = 0; i < n_gas + n_cl; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 29, kStreamSetup, k); };
    const bool gas = i < n_gas;
    s.id[i] = i + 1;
    s.type[i] = gas ? kGas : kCloud;
    s.pos[i] = s.pos0[i] = {L * u(0), L * u(1), L * u(2)};
    s.vel[i] = {40 * (u(3) - 0.5), 40 * (u(4) - 0.5), 40 * (u(5) - 0.5)};
    s.vel0[i] = s.vel[i] + Vec3d{0.1 * (u(9) - 0.5), 0.0, 0.0};
    s.mass[i] = gas ? m_gas : m_gas * std::pow(10.0, -0.7 + 2.0 * u(6));
    const double T = u(7) < 0.5 ? 1e4 : std::pow(10.0, 6.0 + u(8));
    s.u[i] = s.u0[i] = gas ? u_from_temperature(m.exchange.mu, m.exchange.u_to_T, T) : 0.0;
    s.h[i] = gas ? float(1.5 * L / std::cbrt(double(n_gas))) : 0.0f;
    s.rho[i] = gas ? float(rho) : 0.0f;
    s.acc[i] = s.acc0[i] = {u(10) - 0.5, 0.0, 0.0};
    s.x_h[i] = 0.7;
    s.z_fe[i] = 1e-3 * u(11);
    s.z_o[i] = 1e-2 * u(12);
    s.ti_begin[i] = 0;
    s.ti_end[i] = kTicks;
  }
  return s;
}

// The periodic cube of edge L pc of the exchange tests, and the sticky-cloud model with its
// defaults (evaporation, drag; cooling integrates u).
Box periodic_box(double L) {
  Box box;
  box.periodic = true;
  box.size = {L, L, L};
  return box;
}

StickyCloudsModel sticky_clouds_model() {
  MultiphaseParams mp;
  mp.kind = MultiphaseKind::StickyClouds;
  return StickyCloudsModel(mp, kUnits, true);
}

// One exchange step of the clouds [n_gas, n_gas + n_cl) of `start` on each backend.
struct BothBackends {
  ParticleStore cpu, gpu;
  CloudGasStats stats;   // the CPU driver's
  double accounts[3]{};  // the GPU driver's, on the host
};

BothBackends exchange_on_both(const ParticleStore& start, std::size_t n_gas, std::size_t n_cl,
                              const Box& box, const StickyCloudsModel& m, double tick_len) {
  BothBackends b{start, start, {}, {}};
  FeedbackTiming ft;
  ParticleView cv = b.cpu.view();
  cv.n_gas = n_gas;
  b.stats = exchange_cloud_gas(cv, ActiveSet{}, box, m.exchange, ft, m.gas_neighbours, n_gas,
                               n_gas + n_cl, tick_len);
  DeviceParticles d;
  d.upload(b.gpu);
  d.set_counts(n_gas + n_cl, n_gas);
  GpuCloudGasExchange g(m.exchange, ft, m.gas_neighbours);
  g.apply(d.view(), ActiveSet{}, box, n_gas, n_gas + n_cl, tick_len);
  REQUIRE(cudaMemcpy(b.accounts, g.device_accounts(), sizeof b.accounts, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  d.download(b.gpu);
  return b;
}

// Particles whose type differs, and the largest relative difference of mass, u, z_o, v and v0.
struct BackendDiff {
  long types = 0;
  double worst = 0.0;
};

BackendDiff backend_diff(const ParticleStore& cpu, const ParticleStore& gpu, std::size_t n) {
  BackendDiff r;
  for (std::size_t i = 0; i < n; ++i) {
    r.types += cpu.type[i] != gpu.type[i];
    r.worst = std::max({r.worst, rel_diff(cpu.mass[i], gpu.mass[i]), rel_diff(cpu.u[i], gpu.u[i]),
                        rel_diff(cpu.z_o[i], gpu.z_o[i])});
    r.worst = std::max(r.worst, norm(cpu.vel[i] - gpu.vel[i]) / (norm(cpu.vel[i]) + 1e-300));
    r.worst = std::max(r.worst, norm(cpu.vel0[i] - gpu.vel0[i]) / (norm(cpu.vel0[i]) + 1e-300));
  }
  return r;
}

}  // namespace

TEST_CASE("GPU cloud <-> gas exchange changes the same particles as the CPU driver",
          "[gpu][multiphase]") {
  const std::size_t n_gas = 40000, n_cl = 4000;
  const Box box = periodic_box(400.0);
  const StickyCloudsModel m = sticky_clouds_model();
  const ParticleStore start = gas_and_clouds(n_gas, n_cl, 400.0, m);
  const double dt = 0.5, tick_len = dt / double(kTicks);
  const BothBackends both = exchange_on_both(start, n_gas, n_cl, box, m, tick_len);
  const ParticleStore &cpu = both.cpu, &gpu = both.gpu;
  const CloudGasStats& st = both.stats;
  const double* acc = both.accounts;

  // The test exercises every branch: evaporation, condensation, clouds back to gas, drag.
  REQUIRE(st.evaporated > 0.0);
  REQUIRE(st.condensed > 0.0);
  REQUIRE(st.to_gas > 10);
  REQUIRE(st.drag_work > 0.0);
  const BackendDiff diff = backend_diff(cpu, gpu, n_gas + n_cl);
  const long types = diff.types;
  const double worst = diff.worst;
  CHECK(types == 0);
  CHECK(worst < 1e-13);
  // The evaporation time-step criterion (multiphase.evaporation_courant, default 0.1) of the
  // clouds that stay: the same rates, from the same mass and gas (1e-13, as the masses).
  REQUIRE(m.exchange.evaporation_courant > 0.0);
  long rated = 0;
  double worst_rate = 0;
  for (std::size_t i = n_gas; i < n_gas + n_cl; ++i) {
    rated += cpu.type[i] == kCloud && cpu.cloud_step_rate[i] > 0.0;
    worst_rate = std::max(worst_rate, rel_diff(cpu.cloud_step_rate[i], gpu.cloud_step_rate[i]));
  }
  CHECK(rated > 100);
  CHECK(worst_rate < 1e-13);
  std::printf("[gpu multiphase] exchange: %ld evaporation step rates, max rel diff %.2e\n", rated,
              worst_rate);
  CHECK(rel_diff(st.evaporation, acc[0]) < 1e-12);
  CHECK(rel_diff(st.drag_work, acc[1]) < 1e-12);
  CHECK(acc[2] == -acc[1]);
  std::printf(
      "[gpu multiphase] exchange: %ld clouds -> gas, %ld removed, evaporated %.4g, condensed "
      "%.4g; types differ %ld, max rel diff %.2e, accounts %.2e %.2e\n",
      st.to_gas, st.removed, st.evaporated, st.condensed, types, worst,
      rel_diff(st.evaporation, acc[0]), rel_diff(st.drag_work, acc[1]));
}

TEST_CASE("GPU cloud <-> gas exchange grants crowded condensation as the CPU driver",
          "[gpu][multiphase]") {
  // 2000 clouds squeezed into 30 pc among 4000 gas particles (mean spacing 25 pc): the clouds
  // share their 50 nearest gas particles and ask many times f of their masses; the receivers'
  // grants (cloud_gas_exchange_kern.hpp) must be the CPU driver's to round-off, and no gas
  // particle gives more than f of its mass.
  const std::size_t n_gas = 4000, n_cl = 2000;
  const Box box = periodic_box(400.0);
  const StickyCloudsModel m = sticky_clouds_model();
  ParticleStore start = gas_and_clouds(n_gas, n_cl, 400.0, m);
  const double u_warm = u_from_temperature(m.exchange.mu, m.exchange.u_to_T, 1e4);
  for (std::size_t j = 0; j < n_gas; ++j) start.u[j] = start.u0[j] = u_warm;  // all condense
  for (std::size_t i = n_gas; i < n_gas + n_cl; ++i)
    start.pos[i] = start.pos0[i] =
        Vec3d{200, 200, 200} + (30.0 / 400.0) * (start.pos[i] - Vec3d{200, 200, 200});
  // A step long enough (5e4 pc / (km/s)) that the demands saturate: measured on the CPU, the
  // most-asked gas particle gives exactly f.
  const double dt = 5e4, tick_len = dt / double(kTicks);
  const BothBackends both = exchange_on_both(start, n_gas, n_cl, box, m, tick_len);
  const CloudGasStats& st = both.stats;
  REQUIRE(st.condensed > 0.0);
  const double f = m.exchange.condense_limit;
  const BackendDiff diff = backend_diff(both.cpu, both.gpu, n_gas + n_cl);
  const long types = diff.types;
  const double worst = diff.worst;
  long at_limit = 0;
  double least = 1.0;
  for (std::size_t i = 0; i < n_gas; ++i) {
    const double ratio = both.gpu.mass[i] / start.mass[i];
    least = std::min(least, ratio);
    at_limit += std::fabs(ratio - (1.0 - f)) <= 1e-13;
  }
  CHECK(types == 0);
  CHECK(worst < 1e-13);
  CHECK(least >= (1.0 - f) * (1.0 - 1e-14));
  CHECK(at_limit >= 1);
  std::printf(
      "[gpu multiphase] crowded condensation: condensed %.4g, %ld gas particles at the "
      "limit, least m1/m0 %.6f; types differ %ld, max rel diff %.2e\n",
      st.condensed, at_limit, least, types, worst);
}

namespace {

// The multiphase box of the backend tests (16^3 gas, hot and warm, clouds forming and
// evaporating), run for `steps` steps.
std::string multiphase_box_yaml(int steps) {
  return "run: {t_end: 100.0, max_steps: " + std::to_string(steps) + R"(, diagnostics_every: 1}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: multiphase_box, n_side: 16, box_size: 200, n_H: 0.1, temperature: 3.0e6,
        warm_temperature: 8000, n_clumps: 8, clump_radius: 25, seed: 1}
gravity: {enabled: false}
cooling: {model: sd93, metals: particles, floor_K: 100}
multiphase: {model: sticky_clouds, evaporation: cowie_mckee, drag_coefficient: 1.0}
timestep: {scheme: global}
)";
}

}  // namespace

// Issue 12's conservation test on the GPU backend: 100 steps of the multiphase box, total mass,
// linear momentum and metal masses to 1e-12 relative (the CPU backend's is
// multiphase_box_validation.cpp).
TEST_CASE("multiphase box: mass, momentum and metals over 100 steps on the GPU",
          "[gpu][multiphase]") {
  const std::string dir = test::scratch_dir("gpu_multiphase_box_100");
  Simulation sim(test::run_options(dir, multiphase_box_yaml(100), {}, "gpu"));
  const test::ConservedTotals r0 = test::conserved_totals(sim.particles());
  sim.run();
  const test::ConservedTotals r1 = test::conserved_totals(sim.particles());
  std::printf(
      "[gpu multiphase] box, 100 steps on the GPU: %zu clouds; relative change of mass %.2e, Fe "
      "%.2e, O %.2e; |dP| / sum m|v| %.2e\n",
      r1.clouds, std::fabs(r1.mass - r0.mass) / r0.mass, std::fabs(r1.fe - r0.fe) / r0.fe,
      std::fabs(r1.o - r0.o) / r0.o, norm(r1.p - r0.p) / r1.p_scale);
  CHECK(r1.clouds > 0);
  CHECK(std::fabs(r1.mass - r0.mass) <= 1e-12 * r0.mass);
  CHECK(std::fabs(r1.fe - r0.fe) <= 1e-12 * r0.fe);
  CHECK(std::fabs(r1.o - r0.o) <= 1e-12 * r0.o);
  CHECK(norm(r1.p - r0.p) <= 1e-12 * r1.p_scale);
}

TEST_CASE("multiphase box: 50 steps on the GPU and CPU backends", "[gpu][multiphase][backend]") {
  const std::string yaml = multiphase_box_yaml(50);
  using Result = test::ConservedTotals;
  auto totals = [](const ParticleStore& s) { return test::conserved_totals(s); };
  Result r0[2], r1[2];
  std::string dirs[2] = {test::scratch_dir("gpu_multiphase_box_cpu"),
                         test::scratch_dir("gpu_multiphase_box_gpu")};
  const char* devices[2] = {"cpu", "gpu"};
  for (int b = 0; b < 2; ++b) {
    Simulation sim(test::run_options(dirs[b], yaml, {}, std::string(devices[b])));
    r0[b] = totals(sim.particles());
    sim.run();
    r1[b] = totals(sim.particles());
  }
  for (int b = 0; b < 2; ++b) {
    INFO(devices[b]);
    CHECK(r1[b].clouds > 0);
    CHECK(std::fabs(r1[b].mass - r0[b].mass) <= 1e-12 * r0[b].mass);
    CHECK(std::fabs(r1[b].fe - r0[b].fe) <= 1e-12 * r0[b].fe);
    CHECK(std::fabs(r1[b].o - r0[b].o) <= 1e-12 * r0[b].o);
    CHECK(norm(r1[b].p - r0[b].p) <= 1e-12 * r1[b].p_scale);
  }
  // The two backends' SPH forces differ at float round-off, so their flows part slowly; the cold
  // mass, decided by the same thresholds, follows the same history.
  const auto mc = test::energy_column(dirs[0], "M_cold"),
             mg = test::energy_column(dirs[1], "M_cold");
  const auto ec = test::energy_column(dirs[0], "E_evaporation"),
             eg = test::energy_column(dirs[1], "E_evaporation");
  REQUIRE(mc.size() == 51);
  REQUIRE(mg.size() == mc.size());
  double worst_m = 0, worst_e = 0;
  for (std::size_t k = 1; k < mc.size(); ++k) {
    worst_m = std::max(worst_m, rel_diff(mc[k], mg[k]));
    worst_e = std::max(worst_e, rel_diff(ec[k], eg[k]));
  }
  std::printf(
      "[gpu multiphase] box, 50 steps: clouds cpu %zu gpu %zu, max rel diff M_cold %.2e, "
      "E_evaporation %.2e\n",
      r1[0].clouds, r1[1].clouds, worst_m, worst_e);
  CHECK(r1[0].clouds == r1[1].clouds);
  CHECK(worst_m < 1e-6);
  CHECK(worst_e < 1e-6);
}

#endif  // MPSPH_HAVE_CUDA
