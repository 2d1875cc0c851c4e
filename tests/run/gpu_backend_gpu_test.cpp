// Whole runs on the GPU backend against the CPU backend on the same initial conditions: energies
// over 50 steps, the Evrard collapse at N = 1e5 (energy to t = 3, profiles at t = 0.8), the Sod
// tube's L1 errors, the GPU order stage, and individual (block) time steps: rungs, particle
// updates and energies against the CPU backend, restarts bit for bit, and a segment of the ISM
// disk, whose gas turns into clouds between substeps.
#ifdef MPSPH_HAVE_CUDA
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/particle_order.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/rng.hpp"
#include "core/sfc_key.hpp"
#include "io/snapshot.hpp"
#include "multiphase/energy_column.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "setups/sod_errors.hpp"

using namespace mpsph;

namespace {

using test::EnergyRow;
using test::read_energy;

std::string scratch_dir(const std::string& name) {
  return test::scratch_dir("gpu_" + name);
}

RunOptions options(const std::string& dir, const std::string& yaml, const std::string& device,
                   std::vector<std::string> overrides = {}) {
  return test::run_options(dir, yaml, std::move(overrides), device);
}

// Largest |a - b| / |b| over the rows, per energy; 0/0 counts as agreement.
double max_rel(const std::vector<EnergyRow>& a, const std::vector<EnergyRow>& b,
               double EnergyRow::*field) {
  double m = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    const double d = std::fabs(a[k].*field - b[k].*field);
    if (d > 0) m = std::max(m, d / std::fabs(b[k].*field));
  }
  return m;
}

void compare_50_steps(const std::string& name, const std::string& yaml) {
  const std::string dc = scratch_dir(name + "_cpu"), dg = scratch_dir(name + "_gpu");
  const std::vector<std::string> ov = {"run.max_steps=50", "run.diagnostics_every=1",
                                       "timestep.scheme=global"};
  {
    Simulation cpu(options(dc, yaml, "cpu", ov));
    cpu.run();
  }
  {
    Simulation gpu(options(dg, yaml, "gpu", ov));
    gpu.run();
  }
  const auto rc = read_energy(dc), rg = read_energy(dg);
  REQUIRE(rc.size() == rg.size());
  REQUIRE(rc.size() >= 51);
  const double ek = max_rel(rg, rc, &EnergyRow::ek), eu = max_rel(rg, rc, &EnergyRow::eu),
               ew = max_rel(rg, rc, &EnergyRow::ew), et = max_rel(rg, rc, &EnergyRow::etot);
  std::printf(
      "[gpu backend] %s, 50 steps: max rel diff E_kin %.3g, E_th %.3g, E_pot %.3g, "
      "E_tot %.3g (t = %.6g vs %.6g)\n",
      name.c_str(), ek, eu, ew, et, rg.back().t, rc.back().t);
  // Issue bound 1e-5: the same stages on the same data; the states differ by float rounding of
  // pair terms (~1e-7 relative) carried through 50 steps.
  CHECK(ek < 1e-5);
  CHECK(eu < 1e-5);
  CHECK(ew < 1e-5);
  CHECK(et < 1e-5);
}

}  // namespace

TEST_CASE("GPU and CPU backends give the same energies over 50 steps", "[gpu][backend]") {
  SECTION("Evrard, N = 2e4, direct gravity") {
    compare_50_steps("evrard50", R"(
run: {t_end: 3.0}
setup: {type: evrard, n_particles: 20000}
gravity: {method: direct, softening: [0.02]}
)");
  }
  SECTION("Evrard, N = 2e4, direct gravity, own-pressure energy equation") {
    compare_50_steps("evrard50_own", R"(
run: {t_end: 3.0}
setup: {type: evrard, n_particles: 20000}
gravity: {method: direct, softening: [0.02]}
sph: {energy_equation: own_pressure}
)");
  }
  SECTION("Sod tube, periodic") {
    compare_50_steps("sod50", R"(
run: {t_end: 0.2}
setup: {type: sod, nx_left: 48, ny_left: 14, arrangement: lattice}
gravity: {enabled: false}
timestep: {use_velocity: false}
)");
  }
}

namespace {

struct Profile {
  std::vector<double> rho, u, vr;
  std::vector<int> count;
};

// Mass-weighted means of rho, u and v_r in 16 log-spaced shells 0.01 < r < 1 about the centre of
// mass.
Profile radial_profile(const ParticleStore& s) {
  constexpr int kBins = 16;
  Vec3d com{0, 0, 0}, vcom{0, 0, 0};
  double m = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    com += s.mass[i] * s.pos[i], vcom += s.mass[i] * s.vel[i], m += s.mass[i];
  com *= 1.0 / m;
  vcom *= 1.0 / m;
  Profile p{std::vector<double>(kBins, 0), std::vector<double>(kBins, 0),
            std::vector<double>(kBins, 0), std::vector<int>(kBins, 0)};
  std::vector<double> mb(kBins, 0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3d dx = s.pos[i] - com;
    const double r = norm(dx);
    const int b = int(std::floor((std::log10(r) + 2.0) / 2.0 * kBins));
    if (b < 0 || b >= kBins) continue;
    const double mi = s.mass[i];
    p.rho[b] += mi * s.rho[i];
    p.u[b] += mi * s.u[i];
    p.vr[b] += mi * dot(s.vel[i] - vcom, dx) / r;
    mb[b] += mi;
    ++p.count[b];
  }
  for (int b = 0; b < kBins; ++b)
    if (mb[b] > 0) p.rho[b] /= mb[b], p.u[b] /= mb[b], p.vr[b] /= mb[b];
  return p;
}

}  // namespace

TEST_CASE("Evrard collapse, N = 1e5, on the GPU: energy to t = 3 and profiles at t = 0.8",
          "[gpu][backend][evrard]") {
  const char* yaml = R"(
run: {t_end: 3.0, snapshot_times: [0.8]}
setup: {type: evrard, n_particles: 100000}
gravity: {softening: [0.02]}
)";
  const std::string dg = scratch_dir("evrard1e5_gpu"), dc = scratch_dir("evrard1e5_cpu");
  long gpu_steps = 0;
  const auto t0 = std::chrono::steady_clock::now();
  {
    // Progress lines on: this run takes minutes, and its step rate is worth seeing in the log.
    RunOptions o = options(dg, yaml, "gpu");
    o.quiet = false;
    Simulation gpu(o);
    REQUIRE(gpu.run());
    gpu_steps = gpu.step_count();
  }
  const double gpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto rows = read_energy(dg);
  double worst = 0;
  for (const auto& r : rows) worst = std::max(worst, std::fabs(r.rel));
  std::printf("[gpu backend] Evrard N=1e5 GPU to t=3: %ld steps in %.1f s, max |dE/E0| = %.3g\n",
              gpu_steps, gpu_s, worst);
  // Issue target: |Delta E / E0| < 1% to t = 3.
  CHECK(worst < 0.01);

  // The CPU run of the same configuration to t = 0.8: run here, or - to spare the GPU machine's
  // time - a snapshot of `mpsph run --device cpu` of this configuration named by
  // MPSPH_EVRARD_1E5_CPU_SNAPSHOT (checked: same particles, t = 0.8).
  std::string ref = dc + "/snapshot_0001.h5";
  if (const char* env = std::getenv("MPSPH_EVRARD_1E5_CPU_SNAPSHOT"); env && *env) {
    ref = env;
  } else {
    Simulation cpu(options(dc, yaml, "cpu", {"run.t_end=0.8"}));
    REQUIRE(cpu.run());
  }
  SnapshotMeta meta_c, meta_g;
  const ParticleStore sc = read_snapshot(ref, &meta_c);
  const ParticleStore sg = read_snapshot(dg + "/snapshot_0001.h5", &meta_g);
  REQUIRE(sc.size() == sg.size());
  REQUIRE(meta_c.time == Approx(0.8).epsilon(1e-12));
  REQUIRE(meta_g.time == Approx(0.8).epsilon(1e-12));
  const Profile pg = radial_profile(sg);
  const Profile pc = radial_profile(sc);
  double vmax = 0;
  for (double v : pc.vr) vmax = std::max(vmax, std::fabs(v));
  double d_rho = 0, d_u = 0, d_vr = 0;
  for (std::size_t b = 0; b < pc.rho.size(); ++b) {
    if (pc.count[b] < 500 || pg.count[b] < 500) continue;
    d_rho = std::max(d_rho, std::fabs(pg.rho[b] / pc.rho[b] - 1.0));
    d_u = std::max(d_u, std::fabs(pg.u[b] / pc.u[b] - 1.0));
    d_vr = std::max(d_vr, std::fabs(pg.vr[b] - pc.vr[b]) / vmax);
    std::printf(
        "[gpu backend] t=0.8 shell %2zu (n=%d): rho %.5g/%.5g u %.5g/%.5g v_r %.5g/%.5g "
        "(gpu/cpu)\n",
        b, pg.count[b], pg.rho[b], pc.rho[b], pg.u[b], pc.u[b], pg.vr[b], pc.vr[b]);
  }
  std::printf(
      "[gpu backend] Evrard N=1e5 profiles at t=0.8, GPU vs CPU: max rel diff rho %.3g, "
      "u %.3g, v_r %.3g (of max |v_r|)\n",
      d_rho, d_u, d_vr);
  // Shells holding >= 500 particles: the two runs differ by the gravity solvers' force errors
  // (~1e-3) and by rounding, which chaos amplifies at the particle level but not in shell means;
  // 3% leaves room for the shock, which is resolved over ~2 shells.
  CHECK(d_rho < 0.03);
  CHECK(d_u < 0.03);
  CHECK(d_vr < 0.03);
}

namespace {

using test::SodErrors;

SodErrors sod_l1(const std::string& device) {
  const char* yaml = R"(
run: {t_end: 0.2}
setup: {type: sod, nx_left: 36, ny_left: 12}
gravity: {enabled: false}
timestep: {use_velocity: false}
)";
  const std::string out = scratch_dir("sod_l1_" + device);
  Simulation sim(options(out, yaml, device));
  REQUIRE(sim.run());
  return test::sod_l1_errors(sim.particles(), sim.time(), 5.0 / 3.0);
}

}  // namespace

TEST_CASE("Sod tube on the GPU has the CPU backend's L1 errors", "[gpu][backend][sod]") {
  const SodErrors c = sod_l1("cpu"), g = sod_l1("gpu");
  std::printf("[gpu backend] Sod L1 rho/v/P: cpu %.5g %.5g %.5g, gpu %.5g %.5g %.5g\n", c.rho,
              c.vel, c.pres, g.rho, g.vel, g.pres);
  // Same scheme, same particles: the L1 errors (~0.05, dominated by the smeared shock) may differ
  // only by rounding carried through the run; 1% of their value.
  CHECK(g.rho == Approx(c.rho).epsilon(0.01));
  CHECK(g.vel == Approx(c.vel).epsilon(0.01));
  CHECK(g.pres == Approx(c.pres).epsilon(0.01));
}

TEST_CASE("GPU order stage gives the CPU's (type, key) order", "[gpu][order]") {
  for (bool periodic : {false, true}) {
    INFO("periodic " << periodic);
    Box box;
    if (periodic) box.periodic = true, box.lo = {-1, -1, -1}, box.size = {2, 2, 3};
    ParticleStore s;
    const std::size_t n = 50000;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      s.pos[i] = {4 * random_uniform(i, 5, kStreamSetup, 0) - 2.0,
                  4 * random_uniform(i, 5, kStreamSetup, 1) - 2.0,
                  4 * random_uniform(i, 5, kStreamSetup, 2) - 2.0};
      if (i % 7 == 0) s.pos[i] = s.pos[i - (i % 3)];  // duplicate keys: stability matters
      s.id[i] = i;
      s.mass[i] = 1.0;
      s.type[i] = uint8_t(random_uniform(i, 5, kStreamSetup, 3) * 3.0);  // gas, DM, clouds
    }
    ParticleStore cpu = s;
    order_particles(cpu, box);
    DeviceParticles d;
    d.upload(s);
    DeviceOrder order;
    order.sort(d, box, true);
    ParticleStore g = s;
    d.download(g);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i)
      same = same && g.id[i] == cpu.id[i] && g.type[i] == cpu.type[i] && g.pos[i].x == cpu.pos[i].x;
    // Exact: same keys from the same sfc_key(), both sorts stable with index tie-break.
    CHECK(same);
    if (periodic) continue;
    // In a given cube (the MPI ranks' sort in the run's cube): the stable (type, key) order of
    // sfc_key in that cube, also where it cuts the particles' bounds (keys clamped alike).
    for (const KeyCube cube :
         {KeyCube{{-3.1, -2.7, -3.3}, 5.9}, KeyCube{{-1.5, -1.0, -1.2}, 2.5}}) {
      INFO("cube at " << cube.lo.x << " edge " << cube.edge);
      std::vector<std::size_t> by(n);
      std::iota(by.begin(), by.end(), std::size_t(0));
      std::stable_sort(by.begin(), by.end(), [&](std::size_t a, std::size_t b) {
        const uint64_t ka = sfc_key(s.pos[a], cube.lo, cube.edge),
                       kb = sfc_key(s.pos[b], cube.lo, cube.edge);
        return s.type[a] != s.type[b] ? s.type[a] < s.type[b] : ka < kb;
      });
      DeviceParticles dc;
      dc.upload(s);
      order.sort(dc, box, true, nullptr, &cube);
      ParticleStore gc = s;
      dc.download(gc);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < n; ++i) differ += gc.id[i] != s.id[by[i]];
      CHECK(differ == 0);
      // Not the bounding cube's order (the test would not see the cube otherwise).
      std::size_t moved = 0;
      for (std::size_t i = 0; i < n; ++i) moved += gc.id[i] != cpu.id[i];
      CHECK(moved > n / 10);
    }
  }
}
namespace {

// "particle updates: N" of <dir>/timing.txt.
double particle_updates(const std::string& dir) {
  std::ifstream f(dir + "/timing.txt");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("particle updates: ", 0) == 0) return std::stod(line.substr(18));
  return -1.0;
}

const char* kBlockEvrard = R"(
run: {t_end: 0.4, diagnostics_every: 1}
setup: {type: evrard, n_particles: 20000}
gravity: {softening: [0.02]}
timestep: {scheme: block, dt_max: 0.1}
)";

}  // namespace

TEST_CASE("block time steps: the GPU gives the CPU's rungs, updates and energies",
          "[gpu][backend][block]") {
  const std::string dc = scratch_dir("block_cpu"), dg = scratch_dir("block_gpu");
  std::map<uint64_t, int> rung_cpu;
  {
    Simulation cpu(options(dc, kBlockEvrard, "cpu"));
    REQUIRE(cpu.run());
    const ParticleStore& s = cpu.particles();
    for (std::size_t i = 0; i < s.size(); ++i) rung_cpu[s.id[i]] = s.rung[i];
  }
  std::size_t same = 0, n = 0;
  int max_rung = 0;
  {
    Simulation gpu(options(dg, kBlockEvrard, "gpu"));
    REQUIRE(gpu.run());
    const ParticleStore& s = gpu.particles();
    for (std::size_t i = 0; i < s.size(); ++i) {
      same += rung_cpu.at(s.id[i]) == s.rung[i];
      max_rung = std::max(max_rung, int(s.rung[i]));
      ++n;
    }
  }
  const double uc = particle_updates(dc), ug = particle_updates(dg);
  const auto rc = read_energy(dc), rg = read_energy(dg);
  REQUIRE(rc.size() == rg.size());
  REQUIRE(rc.size() == 5);  // t = 0 and the four segment ends
  const double et = max_rel(rg, rc, &EnergyRow::etot), ek = max_rel(rg, rc, &EnergyRow::ek);
  std::printf(
      "[gpu backend] block Evrard N=2e4 to t=0.4: same last rung %zu of %zu (max rung %d); "
      "particle updates cpu %.0f gpu %.0f; max rel diff E_tot %.3g E_kin %.3g; "
      "rel_error cpu %.3g gpu %.3g\n",
      same, n, max_rung, uc, ug, et, ek, rc.back().rel, rg.back().rel);
  // Rungs are discrete: a particle whose limited step lies within float rounding of a power of
  // two, or whose limiter pair sits at the edge of the kernel support (the GPU tests pairs at
  // the corrected positions, the CPU at the force evaluation's), may take the neighbouring rung.
  // Such particles are rare: 99% must agree, and the work within 1%.
  CHECK(double(same) >= 0.99 * double(n));
  CHECK(max_rung >= 2);  // the run did use several rungs
  CHECK(std::fabs(ug - uc) <= 0.01 * uc);
  // The energies at the synchronisation points: the bound of the global scheme's 50-step
  // comparison (float rounding of pair terms carried through the run; measured 5e-8 on the H200,
  // 2026-11-25, with every rung equal).
  CHECK(et < 1e-5);
  CHECK(ek < 1e-5);
}

TEST_CASE("block time steps on the GPU: a restarted run is bit-identical", "[gpu][block]") {
  const std::string a = scratch_dir("block_restart_a"), b = scratch_dir("block_restart_b");
  const std::vector<std::string> ov = {"setup.n_particles=5000", "run.snapshot_times=[0.2]"};
  {
    Simulation full(options(a, kBlockEvrard, "gpu", ov));
    REQUIRE(full.run());
  }
  {
    std::vector<std::string> first = ov;
    first.push_back("run.max_steps=1");  // stops at the end of the first segment (t = 0.1)
    Simulation sim(options(b, kBlockEvrard, "gpu", first));
    CHECK_FALSE(sim.run());
    CHECK(sim.time() == 0.1);
  }
  Simulation second(test::restart_options(b, "gpu"));
  REQUIRE(second.run());
  for (const char* name : {"/snapshot_0001.h5", "/snapshot_0002.h5"}) {
    INFO(name);
    const ParticleStore x = read_snapshot(a + name), y = read_snapshot(b + name);
    REQUIRE(x.size() == y.size());
    bool identical = true;
    for (std::size_t i = 0; i < x.size(); ++i)
      identical = identical && x.id[i] == y.id[i] && x.pos[i].x == y.pos[i].x &&
                  x.pos[i].y == y.pos[i].y && x.pos[i].z == y.pos[i].z &&
                  x.vel[i].x == y.vel[i].x && x.vel[i].y == y.vel[i].y &&
                  x.vel[i].z == y.vel[i].z && x.u[i] == y.u[i] && x.rho[i] == y.rho[i];
    CHECK(identical);
  }
}

// setups/isolated_disk_ism.yaml as shipped (18 500 particles, block steps), to the end of its first
// segment (dt_max = 0.005, ~4.9 Myr, about 30 substeps).
const char* const kIsmDisk = R"(
run: {t_end: 0.005, snapshot_interval: 0.005}
units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
setup:
  type: disk_galaxy
  seed: 1
  halo: {mass: 95.0, scale_radius: 29.0, r_max: 300.0, n: 10000}
  bulge: {mass: 1.0, scale_radius: 0.6, r_max: 30.0, n: 1000}
  disk: {mass: 4.0, gas_fraction: 0.15, scale_length: 3.0, scale_height: 0.6, r_max: 30.0, n: 5000}
  gas: {n: 2500, temperature: 1.0e4, mu: 1.22}
eos: {type: adiabatic, gamma: 1.6666666666666667}
gravity: {method: tree, softening: [0.1, 0.4, 0.1, 0.1, 0.1, 0.1]}
timestep: {scheme: block, dt_max: 0.005}
cooling: {model: sd93, metals: particles, floor_K: 100}
multiphase: {model: sticky_clouds, evaporation: cowie_mckee, drag_coefficient: 1.0}
starform: {model: clouds, clouds_trigger: coalescence, eps_sf: 0.05}
feedback: {model: ssp}
)";

// Gas that turns into clouds in a substep leaves the gas range at the next order stage. The GPU
// backend took the next substep's active gas count from the synchronisation before the change, so
// its SPH passes took active clouds for gas and, with few active particles per warp, wrote leaf
// lists past the reserved ones: this run stopped at its second substep with an illegal address
// in the force pass (2026-11-26). Now it must finish the segment and agree with the CPU backend
// within the bound of the 50-step comparisons above (float rounding of pair terms).
TEST_CASE("block time steps on the GPU: the ISM disk's first segment as on the CPU",
          "[gpu][backend][block][multiphase]") {
  const std::string dc = scratch_dir("ism_disk_cpu"), dg = scratch_dir("ism_disk_gpu");
  {
    Simulation cpu(options(dc, kIsmDisk, "cpu"));
    REQUIRE(cpu.run());
  }
  {
    Simulation gpu(options(dg, kIsmDisk, "gpu"));
    REQUIRE(gpu.run());
  }
  const auto rc = read_energy(dc), rg = read_energy(dg);
  REQUIRE(rc.size() == 2);  // t = 0 and the segment's end
  REQUIRE(rg.size() == rc.size());
  const auto mc = test::energy_column(dc, "M_cold"), mg = test::energy_column(dg, "M_cold");
  REQUIRE(mc.size() == 2);
  REQUIRE(mg.size() == 2);
  const double et = max_rel(rg, rc, &EnergyRow::etot), ek = max_rel(rg, rc, &EnergyRow::ek);
  const double m_gas = 4.0 * 0.15 / 2500;  // one gas particle (disk mass x gas fraction / n)
  const double dm = std::fabs(mg[1] - mc[1]) / m_gas;
  std::printf(
      "[gpu backend] ISM disk, one block segment: substeps cpu %ld gpu %ld; max rel diff E_tot "
      "%.3g E_kin %.3g; M_cold cpu %.6g gpu %.6g (%.2f gas particles apart)\n",
      rc.back().step, rg.back().step, et, ek, mc[1], mg[1], dm);
  CHECK(rg.back().step == rc.back().step);
  CHECK(mc[1] > 1000 * m_gas);  // gas did turn into clouds
  // The gas cools onto the SD93 cliff at ~1e4 K, which is the cloud-formation threshold T_c: a
  // particle within float rounding of it may turn into a cloud on one backend and not on the
  // other. Measured on an H100 (2026-11-26): 1 and 4 of the ~1330 that turn (two builds); bound
  // 1%, 13 particles.
  CHECK(dm <= 0.01 * mc[1] / m_gas);
  CHECK(et < 1e-5);
  CHECK(ek < 1e-5);
}
#endif
