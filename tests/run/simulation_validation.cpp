// Whole-problem validation runs of the CPU backend (ctest label "validation"), sized to stay
// inside the CI budget on 2 cores. Each checks a physical fact with a stated tolerance.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "io/snapshot.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "setups/sod_errors.hpp"

using namespace mpsph;

namespace {

using test::EnergyRow;
using test::read_energy;
using test::scratch_dir;

const char* kEvrard = R"(
run: {t_end: 3.0, snapshot_times: [0.8]}
setup: {type: evrard, n_particles: 2000}
gravity: {softening: [0.02]}
)";

}  // namespace

TEST_CASE("Evrard collapse conserves energy to 1% up to t = 3", "[validation][evrard]") {
  const std::string out = scratch_dir("evrard");
  Simulation sim(test::run_options(out, kEvrard));
  REQUIRE(sim.run());
  const auto rows = read_energy(out);
  REQUIRE(rows.back().t == Approx(3.0));
  double max_rel = 0;
  for (const auto& r : rows) max_rel = std::max(max_rel, std::fabs(r.rel));
  INFO("max |dE/E0| = " << max_rel << " over " << rows.size() << " rows");
  // Issue target: |Delta E / E0| < 1% to t = 3.
  CHECK(max_rel < 0.01);
  // Initial energies: E0 ~ -0.617 + 0.05 (lattice and softening dependent, Evrard 1988);
  // thermal energy exactly 0.05 (u = 0.05 for unit mass).
  CHECK(rows.front().eu == Approx(0.05).epsilon(1e-12));
  CHECK(rows.front().ew < -0.6);
  CHECK(rows.front().ew > -0.7);
  // Expected shape: kinetic energy peaks before thermal energy (t ~ 0.9 vs ~ 1.1).
  const auto kmax = std::max_element(rows.begin(), rows.end(),
                                     [](const auto& a, const auto& b) { return a.ek < b.ek; });
  const auto umax = std::max_element(rows.begin(), rows.end(),
                                     [](const auto& a, const auto& b) { return a.eu < b.eu; });
  INFO("kinetic peak at t = " << kmax->t << ", thermal peak at t = " << umax->t);
  CHECK(kmax->t < umax->t);
  CHECK(kmax->t > 0.6);
  CHECK(kmax->t < 1.2);
  CHECK(umax->t > 0.8);
  CHECK(umax->t < 1.5);
}

TEST_CASE("a restarted run is bit-identical to an uninterrupted one", "[validation][restart]") {
  const char* yaml = R"(
run: {t_end: 0.8, snapshot_times: [0.3]}
setup: {type: evrard, n_particles: 500}
gravity: {softening: [0.02]}
)";
  const std::string a = scratch_dir("restart_a"), b = scratch_dir("restart_b");
  {
    Simulation full(test::run_options(a, yaml));
    REQUIRE(full.run());
  }
  long steps_first = 0;
  {
    Simulation first(test::run_options(b, yaml, {"run.max_steps=7"}));
    CHECK_FALSE(first.run());
    steps_first = first.step_count();
  }
  REQUIRE(steps_first == 7);
  RunOptions cont;
  cont.restart_path = b + "/checkpoint.h5";
  cont.overrides = {"run.max_steps=0"};  // the checkpoint's config still carries max_steps = 7
  cont.quiet = true;
  Simulation second(cont);
  REQUIRE(second.run());
  // Both snapshots must match bit for bit; the second (t = 0.8) is written after the restart
  // (t = 0.3 is reached in 6 steps, the restart happens after step 7).
  for (const char* name : {"/snapshot_0001.h5", "/snapshot_0002.h5"}) {
    INFO(name);
    const ParticleStore x = read_snapshot(a + name), y = read_snapshot(b + name);
    REQUIRE(x.size() == y.size());
    bool identical = true;
    for (std::size_t i = 0; i < x.size(); ++i) {
      identical = identical && x.id[i] == y.id[i] && x.pos[i].x == y.pos[i].x &&
                  x.pos[i].y == y.pos[i].y && x.pos[i].z == y.pos[i].z &&
                  x.vel[i].x == y.vel[i].x && x.vel[i].y == y.vel[i].y &&
                  x.vel[i].z == y.vel[i].z && x.u[i] == y.u[i] && x.rho[i] == y.rho[i];
    }
    CHECK(identical);
  }
}

TEST_CASE("SPH conserves linear momentum to round-off over 100 steps", "[validation][momentum]") {
  // Sod tube (gravity off): strong pressure forces, viscosity active at the shocks.
  const char* yaml = R"(
run: {t_end: 1.0, max_steps: 100}
setup: {type: sod, nx_left: 24, ny_left: 12}
gravity: {enabled: false}
)";
  const std::string out = scratch_dir("momentum");
  Simulation sim(test::run_options(out, yaml));
  sim.run();
  REQUIRE(sim.step_count() == 100);
  const ParticleStore& s = sim.particles();
  double p[3] = {0, 0, 0}, scale = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    p[0] += s.mass[i] * s.vel[i].x, p[1] += s.mass[i] * s.vel[i].y, p[2] += s.mass[i] * s.vel[i].z;
    scale += s.mass[i] * norm(s.vel[i]);
  }
  const double rel = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / scale;
  INFO("|sum m v| / sum m |v| = " << rel);
  // Pair forces are exactly antisymmetric in float and accumulated in double: what remains is
  // double round-off of sums over ~4e3 particles x 100 steps (~1e-16 * sqrt(4e5) ~ 1e-13).
  CHECK(rel < 1e-12);
}

namespace {
using test::SodErrors;

SodErrors sod_l1(int nx, int ny, const std::string& name) {
  const char* yaml = R"(
run: {t_end: 0.2}
setup: {type: sod}
gravity: {enabled: false}
timestep: {use_velocity: false}
)";
  const std::string out = scratch_dir(name);
  Simulation sim(test::run_options(
      out, yaml, {"setup.nx_left=" + std::to_string(nx), "setup.ny_left=" + std::to_string(ny)}));
  REQUIRE(sim.run());
  return test::sod_l1_errors(sim.particles(), sim.time(), 5.0 / 3.0);
}
}  // namespace

TEST_CASE("Sod shock tube: L1 errors against the exact solution shrink with resolution",
          "[validation][sod]") {
  const SodErrors coarse = sod_l1(24, 12, "sod_coarse");
  const SodErrors fine = sod_l1(36, 12, "sod_fine");
  INFO("coarse L1 rho/v/P = " << coarse.rho << " " << coarse.vel << " " << coarse.pres);
  INFO("fine   L1 rho/v/P = " << fine.rho << " " << fine.vel << " " << fine.pres);
  // Thresholds: SPH with alpha = 1 viscosity spreads a shock over ~3 smoothing lengths, so the
  // L1 error is dominated by the smeared shock, contact and rarefaction edges:
  // L1 ~ (jump) x (width ~ 3 h) / (region length 1) ~ 0.8 x 3 x 0.05 ~ 0.1 for the velocity at
  // h ~ 1.2 / 24 (measured on the glass ICs: 0.027 / 0.052 / 0.031).
  CHECK(coarse.rho < 0.06);
  CHECK(coarse.vel < 0.1);
  CHECK(coarse.pres < 0.07);
  // Convergence: errors set by the smeared discontinuities fall like h^p with p ~ 0.6-1 for SPH
  // with shocks (measured on nx = 24, 36, 48, 64: p = 0.6 for v, 0.8 for rho and P), so from
  // nx = 24 to 36 they fall to (2/3)^p ~ 0.67-0.78 of their value; 0.9 leaves room for the glass
  // noise.
  CHECK(fine.rho < 0.9 * coarse.rho);
  CHECK(fine.vel < 0.9 * coarse.vel);
  CHECK(fine.pres < 0.9 * coarse.pres);
}

namespace {
// Radii enclosing 10, 50 and 90% of the mass about the centre of mass.
std::vector<double> lagrangian_radii(const ParticleStore& s) {
  Vec3d com{0, 0, 0};
  double m = 0;
  for (std::size_t i = 0; i < s.size(); ++i) com += s.mass[i] * s.pos[i], m += s.mass[i];
  com *= 1.0 / m;
  std::vector<double> r(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) r[i] = norm(s.pos[i] - com);
  std::sort(r.begin(), r.end());
  return {r[r.size() / 10], r[r.size() / 2], r[9 * r.size() / 10]};
}
}  // namespace

TEST_CASE("Plummer sphere keeps its Lagrangian radii for 10 crossing times",
          "[validation][plummer]") {
  // N-body units, E = -1/4: crossing time t_cr = G M^(5/2) / (-2E)^(3/2) = 2 sqrt 2.
  const char* yaml = R"(
run: {t_end: 28.3}
setup: {type: plummer, n_particles: 4000, seed: 7}
gravity: {softening: [0.03]}
)";
  const std::string out = scratch_dir("plummer");
  Simulation sim(test::run_options(out, yaml));
  const std::vector<double> r0 = lagrangian_radii(sim.particles());
  REQUIRE(sim.run());
  const std::vector<double> r1 = lagrangian_radii(sim.particles());
  const auto rows = read_energy(out);
  double max_rel = 0;
  for (const auto& r : rows) max_rel = std::max(max_rel, std::fabs(r.rel));
  INFO("r10/50/90 at t=0: " << r0[0] << " " << r0[1] << " " << r0[2]);
  INFO("r10/50/90 at t=10 t_cr: " << r1[0] << " " << r1[1] << " " << r1[2]);
  INFO("max |dE/E0| = " << max_rel);
  // Issue target: within 5% over 10 crossing times. Two-body relaxation at N = 4000 takes
  // ~N/(8 ln N) ~ 60 t_cr, so an equilibrium model must hold its radii to this level.
  for (int k = 0; k < 3; ++k) CHECK(std::fabs(r1[k] / r0[k] - 1.0) < 0.05);
  CHECK(max_rel < 0.01);
}
