// The sticky-cloud stage on the GPU against the CPU drivers: the same partners, collisions and
// phase changes. The CUDA driver is compiled without fused multiply-add (CMakeLists.txt), so the
// distances and velocities that decide the pairs round as on the CPU: partners, types and masses
// must agree exactly; the summed energies differ only by the order of the sums (1e-13 relative).
#ifdef MPSPH_HAVE_CUDA
#include "multiphase/sticky_clouds_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/device_particles.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"
#include "multiphase/cloud_pairing_kern.hpp"
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

StickyCloudsModel model(bool u_integrated) {
  MultiphaseParams mp;
  mp.kind = MultiphaseKind::StickyClouds;
  return StickyCloudsModel(mp, kUnits, u_integrated);
}

// n clouds of 1e3..1e5 Msun in a periodic box of edge L pc, velocities of ~5 km/s: dense enough
// that most clouds touch another.
ParticleStore random_clouds(std::size_t n, double L) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 17, kStreamSetup, k); };
    s.id[i] = i + 1;
    s.type[i] = kCloud;
    s.mass[i] = std::pow(10.0, 3.0 + 2.0 * u(0));
    s.pos[i] = s.pos0[i] = {L * u(1), L * u(2), L * u(3)};
    s.vel[i] = s.vel0[i] = {10 * (u(4) - 0.5), 10 * (u(5) - 0.5), 10 * (u(6) - 0.5)};
    s.z_fe[i] = 1e-3 * u(7);
    s.z_o[i] = 1e-2 * u(8);
    s.x_h[i] = 0.7;
    s.ti_begin[i] = 0;
    s.ti_end[i] = kTicks;
  }
  return s;
}

}  // namespace

TEST_CASE("GPU cloud collisions choose the same partners and outcomes as the CPU driver",
          "[gpu][multiphase]") {
  const std::size_t n = 20000;
  Box box;
  box.periodic = true;
  box.size = {600, 600, 600};
  const ParticleStore start = random_clouds(n, 600.0);
  const StickyCloudsModel m = model(false);
  // Steps of 0.1 (every cloud's step is one segment of kTicks): a bounce moves the base x0 by
  // -dv dt, a coalescence solves it back from the corrected states (cloud_collision_kern.hpp).
  const double kTickLen = 0.1 / double(kTicks);

  ParticleStore cpu = start;
  CpuCloudScratch scratch;
  const CloudCollisionStats st =
      collide_cloud_set(cpu.view(), ActiveSet{}, box, m.collision, 0, n, 4, kTickLen, scratch);

  ParticleStore gpu = start;
  DeviceParticles d;
  d.upload(gpu);
  d.set_counts(n, 0);
  GpuStickyClouds g(m);
  g.collide(d.view(), ActiveSet{}, box, 0, n, 4, kTickLen);
  const std::vector<int64_t> partners = g.partners();
  double radiated = 0;
  REQUIRE(cudaMemcpy(&radiated, g.device_interaction_energy(), sizeof(double),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  d.download(gpu);

  REQUIRE(st.collisions > 1000);
  REQUIRE(st.mergers > 100);
  REQUIRE(st.mergers < st.collisions);
  CHECK(partners == scratch.partner);
  long differ = 0;
  for (std::size_t i = 0; i < n; ++i)
    differ += cpu.type[i] != gpu.type[i] || cpu.mass[i] != gpu.mass[i] ||
              cpu.vel[i].x != gpu.vel[i].x || cpu.vel[i].y != gpu.vel[i].y ||
              cpu.vel[i].z != gpu.vel[i].z || cpu.pos[i].x != gpu.pos[i].x ||
              cpu.z_fe[i] != gpu.z_fe[i] || cpu.coalescence_step[i] != gpu.coalescence_step[i] ||
              cpu.pos0[i].x != gpu.pos0[i].x || cpu.vel0[i].y != gpu.vel0[i].y;
  CHECK(differ == 0);
  CHECK(rel_diff(st.radiated, radiated) < 1e-13);
  std::printf(
      "[gpu multiphase] %zu clouds: %ld collisions, %ld mergers, same on both backends: %s\n", n,
      st.collisions, st.mergers, differ == 0 ? "yes" : "no");
}

TEST_CASE("GPU cloud viscosity kicks the clouds as the CPU driver does", "[gpu][multiphase]") {
  // The same k-nearest lists (an exact search: the grid only orders the work), densities and
  // kicks; double arithmetic without FMA on both sides, so the velocities agree to the last bits
  // (bound 1e-13 for libm-vs-CUDA differences in cbrt of the grid width, which cannot change
  // the lists).
  const std::size_t n = 20000;
  Box box;
  box.periodic = true;
  box.size = {600, 600, 600};
  const ParticleStore start = random_clouds(n, 600.0);
  MultiphaseParams mp;
  mp.kind = MultiphaseKind::StickyClouds;
  mp.interaction = CloudInteraction::Viscosity;
  const StickyCloudsModel m(mp, kUnits, false);
  const double tick_len = 0.05 / double(kTicks);
  ParticleStore cpu = start;
  CpuCloudViscosityScratch sc;
  const double e_cpu =
      cloud_viscosity(cpu.view(), ActiveSet{}, box, m.viscosity, 0, n, tick_len, sc);
  ParticleStore gpu = start;
  DeviceParticles d;
  d.upload(gpu);
  d.set_counts(n, 0);
  GpuStickyClouds g(m);
  g.viscosity(d.view(), ActiveSet{}, box, 0, n, tick_len);
  double e_gpu = 0;
  REQUIRE(cudaMemcpy(&e_gpu, g.device_interaction_energy(), sizeof(double),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  d.download(gpu);
  double worst = 0;
  long kicked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3d dv = cpu.vel[i] - start.vel[i];
    kicked += norm2(dv) > 0;
    worst = std::max(worst, norm(cpu.vel[i] - gpu.vel[i]) / std::max(norm(dv), 1e-300));
  }
  REQUIRE(kicked > long(n / 2));
  REQUIRE(e_cpu > 0);
  CHECK(worst < 1e-13);  // relative to each cloud's kick
  CHECK(rel_diff(e_cpu, e_gpu) < 1e-12);
  // The signal-speed criterion (multiphase.viscosity_courant, default 0.1) from the same h, c and
  // pair velocities: the same rates (1e-13, as the kicks); then the time-step stage of both
  // backends cuts dt_limit to 1/rate and clears the rate.
  REQUIRE(m.viscosity.courant > 0.0);
  double worst_rate = 0;
  long rated = 0;
  for (std::size_t i = 0; i < n; ++i) {
    rated += cpu.cloud_step_rate[i] > 0.0;
    worst_rate = std::max(worst_rate, rel_diff(cpu.cloud_step_rate[i], gpu.cloud_step_rate[i]));
  }
  CHECK(rated == long(n));
  CHECK(worst_rate < 1e-13);
  for (std::size_t i = 0; i < n; ++i)
    cpu.dt_limit[i] = gpu.dt_limit[i] = 1.0 + 1e-4 * double(i % 7);
  d.upload(gpu);
  d.set_counts(n, 0);
  limit_cloud_steps(cpu.view(), ActiveSet{}, 0, n);
  g.limit_steps(d.view(), ActiveSet{}, 0, n);
  d.download(gpu);
  double worst_dt = 0;
  long cut = 0, left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cut += cpu.dt_limit[i] < 1.0;
    left += gpu.cloud_step_rate[i] != 0.0;
    worst_dt = std::max(worst_dt, rel_diff(cpu.dt_limit[i], gpu.dt_limit[i]));
  }
  CHECK(cut > 0);
  CHECK(left == 0);
  CHECK(worst_dt < 1e-13);
  std::printf(
      "[gpu multiphase] cloud viscosity, %zu clouds: max |v_cpu - v_gpu| / |dv| = %.2e, "
      "energy rel diff %.2e; step rates rel diff %.2e, dt_limit rel diff %.2e (%ld cut)\n",
      n, worst, rel_diff(e_cpu, e_gpu), worst_rate, worst_dt, cut);
}

TEST_CASE("GPU warm -> cold converts the same gas particles as the CPU driver",
          "[gpu][multiphase]") {
  // Gas around the three thresholds: T 10^(3..5) K, n_H 10^(-2..0) cm^-3, div v of either sign.
  const std::size_t n = 50000;
  const StickyCloudsModel m = model(false);
  const CloudFormationParams& p = m.formation;
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 23, kStreamSetup, k); };
    s.id[i] = i + 1;
    s.type[i] = kGas;
    s.mass[i] = 1.0;
    s.x_h[i] = i % 5 == 0 ? 0.0 : 0.7;
    s.u[i] = s.u0[i] = u_from_temperature(p.mu, p.u_to_T, std::pow(10.0, 3.0 + 2.0 * u(0)));
    s.dudt0[i] = s.dudt[i] = (u(1) - 0.5) * s.u[i];
    s.rho[i] = float(std::pow(10.0, -2.0 + 2.0 * u(2)) / (0.7 * p.nH_per_rho));
    s.divv[i] = float(u(3) - 0.5);
    s.ti_begin[i] = 0;
    s.ti_end[i] = kTicks;
  }
  const double tick_len = 0.1 / double(kTicks);
  ParticleStore cpu = s;
  ParticleView cv = cpu.view();
  cv.n_gas = n;
  const CloudFormationStats st = form_clouds(cv, ActiveSet{}, p, tick_len);

  ParticleStore gpu = s;
  DeviceParticles d;
  d.upload(gpu);
  d.set_counts(n, n);
  GpuStickyClouds g(m);
  g.form_clouds(d.view(), ActiveSet{}, tick_len);
  double energy = 0;
  REQUIRE(cudaMemcpy(&energy, g.device_formation_energy(), sizeof(double),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  d.download(gpu);
  REQUIRE(st.formed > 1000);
  REQUIRE(st.formed < long(n) / 2);
  long differ = 0;
  for (std::size_t i = 0; i < n; ++i) differ += cpu.type[i] != gpu.type[i] || cpu.u[i] != gpu.u[i];
  CHECK(differ == 0);
  CHECK(rel_diff(st.thermal_energy, energy) < 1e-13);
  // The phase masses of both backends (gas split at 1e5 K, clouds).
  d.set_counts(n, n);
  const auto mg = g.phase_masses(d.view());
  const auto mc = phase_masses(cpu.view(), m.phase);
  for (int k = 0; k < kNumPhases; ++k)
    CHECK(rel_diff(mg[std::size_t(k)], mc[std::size_t(k)]) < 1e-13);
}

TEST_CASE("sticky-cloud box: 50 steps pair the same clouds on the GPU and CPU backends",
          "[gpu][multiphase][backend]") {
  // Every row's E_collisions is the sum over the step's pairs: one pair more or less on one
  // backend changes it by ~1/(pairs so far), far above the 1e-12 of a different summation order.
  const std::string yaml = R"(
run: {t_end: 5.0, diagnostics_every: 1}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: sticky_clouds, n_clouds: 4000, box_size: 300, cloud_mass: 1.0e4, sigma_v: 5, seed: 5}
gravity: {enabled: false}
timestep: {dt_max: 0.1}
multiphase: {model: sticky_clouds}
)";
  const std::string dc = test::scratch_dir("gpu_sticky_clouds_cpu");
  const std::string dg = test::scratch_dir("gpu_sticky_clouds_gpu");
  std::map<uint64_t, double> mass_cpu, mass_gpu;
  {
    Simulation sim(test::run_options(dc, yaml, {}, std::string("cpu")));
    sim.run();
    const ParticleStore& s = sim.particles();
    for (std::size_t i = 0; i < s.size(); ++i) mass_cpu[s.id[i]] = s.mass[i];
  }
  {
    Simulation sim(test::run_options(dg, yaml, {}, std::string("gpu")));
    sim.run();
    const ParticleStore& s = sim.particles();
    for (std::size_t i = 0; i < s.size(); ++i) mass_gpu[s.id[i]] = s.mass[i];
  }
  const auto rc = test::read_energy(dc), rg = test::read_energy(dg);
  REQUIRE(rc.size() == 51);
  REQUIRE(rg.size() == rc.size());
  const std::vector<double> ec = test::energy_column(dc, "E_collisions"),
                            eg = test::energy_column(dg, "E_collisions");
  REQUIRE(ec.size() == rc.size());
  REQUIRE(eg.size() == rc.size());
  double worst = 0;
  for (std::size_t k = 1; k < rc.size(); ++k) worst = std::max(worst, rel_diff(ec[k], eg[k]));
  CHECK(worst < 1e-12);
  // The same clouds survive, with masses equal to round-off.
  REQUIRE(mass_cpu.size() == mass_gpu.size());
  CHECK(mass_cpu.size() < 4000);
  double dm = 0;
  for (const auto& [id, m] : mass_cpu) {
    REQUIRE(mass_gpu.count(id) == 1);
    dm = std::max(dm, rel_diff(m, mass_gpu[id]));
  }
  CHECK(dm < 1e-14);
  std::printf(
      "[gpu multiphase] sticky-cloud box, 50 steps: 4000 -> %zu clouds on both, max rel "
      "diff E_collisions %.2e, masses %.2e\n",
      mass_cpu.size(), worst, dm);
}

#endif  // MPSPH_HAVE_CUDA
