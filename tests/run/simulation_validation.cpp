// Whole-problem validation runs of the CPU backend (ctest label "validation"), sized to stay
// inside the CI budget on 2 cores. Each checks a physical fact with a stated tolerance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "io/snapshot.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "setups/sod_errors.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

namespace {

using test::EnergyRow;
using test::read_energy;
using test::scratch_dir;

const char* kEvrard = R"(
run: {t_end: 3.0, snapshot_times: [0.8]}
setup: {type: evrard, n_particles: 2000}
gravity: {softening: [0.02]}
timestep: {dt_max: 0.05}
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
timestep: {scheme: global}
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
  Simulation second(test::restart_options(b));  // the checkpoint still carries max_steps = 7
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
timestep: {scheme: global}
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
timestep: {scheme: global, use_velocity: false}
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
timestep: {dt_max: 0.125}
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

// ------------------------------------------------------------------ individual (block) time steps

namespace {

// "particle updates: N" at the end of <dir>/timing.txt (-1 when missing).
double particle_updates(const std::string& dir) {
  std::ifstream f(dir + "/timing.txt");
  std::string line;
  double n = -1.0;
  while (std::getline(f, line))
    if (line.rfind("particle updates: ", 0) == 0) n = std::stod(line.substr(18));
  return n;
}

// Every field of the table (Kept and Scratch) identical byte for byte, in store order.
bool same_fields(const ParticleStore& a, const ParticleStore& b, std::string* differing) {
  struct Raw {
    const void* data;
    std::size_t bytes;
  };
  std::vector<std::pair<std::string, Raw>> fa, fb;
  a.for_each_field([&](const FieldInfo& f, const auto& v) {
    fa.push_back({f.member, {v.data(), v.size() * sizeof(v[0])}});
  });
  b.for_each_field([&](const FieldInfo& f, const auto& v) {
    fb.push_back({f.member, {v.data(), v.size() * sizeof(v[0])}});
  });
  bool same = fa.size() == fb.size();
  for (std::size_t k = 0; same && k < fa.size(); ++k) {
    const Raw &x = fa[k].second, &y = fb[k].second;
    if (x.bytes != y.bytes || (x.bytes && std::memcmp(x.data, y.data, x.bytes) != 0)) {
      *differing += " " + fa[k].first;
      same = false;
    }
  }
  return same;
}

const char* kBlockEvrard = R"(
run: {t_end: 1.2, snapshot_times: [0.3, 0.8], snapshot_fields: [TimeStepLimit]}
setup: {type: evrard, n_particles: 500}
gravity: {softening: [0.02]}
timestep: {dt_max: 0.1}
)";

}  // namespace

TEST_CASE("block time steps on the Evrard collapse: energy, work, exact output times",
          "[validation][evrard][block]") {
  // The same problem under both schemes (dt_max 0.1 caps the global step too).
  const std::string db = scratch_dir("evrard_block"), dg = scratch_dir("evrard_global");
  long substeps = 0;
  int max_rung = 0;
  bool synchronised = true;
  {
    Simulation sim(test::run_options(db, kBlockEvrard, {"timestep.scheme=block"}));
    REQUIRE(sim.run());
    substeps = sim.step_count();
    CHECK(sim.time() == 1.2);
    // The run ends on an output time: every particle's last step ended there (the corrector set
    // its step start to the segment end) - none is left at an earlier time.
    const ParticleStore& s = sim.particles();
    for (std::size_t i = 0; i < s.size(); ++i) {
      synchronised = synchronised && s.ti_begin[i] == kTicks && s.ti_end[i] == kTicks;
      max_rung = std::max(max_rung, int(s.rung[i]));
    }
  }
  {
    Simulation sim(test::run_options(dg, kBlockEvrard, {"timestep.scheme=global"}));
    REQUIRE(sim.run());
  }
  CHECK(synchronised);
  CHECK(max_rung >= 3);  // the run used several rungs (measured: up to rung 4 at t = 0.8)

  // Energy. Measured max |dE/E0| = 4.7e-3 (global scheme: 1.0e-3, each particle on the global
  // minimum step); with timestep.courant 0.05 the block value falls to 1.2e-3, a factor 3.9:
  // the integrator's second-order truncation error, not a leak. Bound: the project's 1% target.
  const auto rows = read_energy(db);
  double max_rel = 0;
  for (const auto& r : rows) max_rel = std::max(max_rel, std::fabs(r.rel));
  INFO("block: max |dE/E0| = " << max_rel << ", " << substeps << " substeps");
  CHECK(max_rel < 0.01);

  // energy.csv rows only at synchronisation points: one per segment of dt_max = 0.1 (every
  // output time is a multiple of it), at t = k/10 - exactly at the output times - while the
  // collapse takes several substeps per segment.
  REQUIRE(rows.size() == 13);
  long most_substeps = 0;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    CHECK(std::fabs(rows[k].t - 0.1 * double(k)) < 1e-12);
    most_substeps = std::max(most_substeps, rows[k].step - rows[k - 1].step);
  }
  CHECK(rows[3].t == 0.3);
  CHECK(rows[8].t == 0.8);
  CHECK(rows[12].t == 1.2);
  CHECK(rows.back().step == substeps);
  CHECK(most_substeps >= 8);  // rung 3 or deeper in that segment

  // Work: particle updates (force evaluations) from timing.txt. Measured 47216 block against
  // 63360 global (ratio 0.745, 2026-11-25); the gain grows with N and the range of time scales.
  const double ub = particle_updates(db), ug = particle_updates(dg);
  INFO("particle updates: block " << ub << ", global " << ug);
  REQUIRE(ub > 0);
  REQUIRE(ug > 0);
  CHECK(ub < 0.85 * ug);

  // Snapshots at exactly the requested times, holding the state at that time: at t = 0.8 the
  // block positions agree with the global run's to the schemes' truncation error (measured
  // median 1.5e-4, max 3.1e-4), far below the distance a particle moves in one of its steps
  // (median |v| dt 1.4e-2), which is how far a particle not synchronised would be off.
  const double times[] = {0.0, 0.3, 0.8, 1.2};
  for (int k = 0; k < 4; ++k) {
    SnapshotMeta meta;
    char name[32];
    std::snprintf(name, sizeof name, "/snapshot_%04d.h5", k);
    read_snapshot(db + name, &meta);
    CHECK(meta.time == times[k]);
  }
  const ParticleStore b = read_snapshot(db + "/snapshot_0002.h5"),
                      g = read_snapshot(dg + "/snapshot_0002.h5");
  REQUIRE(b.size() == g.size());
  std::map<uint64_t, std::size_t> by_id;  // g index of each id
  for (std::size_t i = 0; i < g.size(); ++i) by_id[g.id[i]] = i;
  std::vector<double> dx, step_move;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::size_t j = by_id.at(b.id[i]);
    dx.push_back(norm(b.pos[i] - g.pos[j]));
    step_move.push_back(norm(b.vel[i]) * b.dt_limit[i]);
  }
  const double dx_max = *std::max_element(dx.begin(), dx.end());
  std::sort(dx.begin(), dx.end());
  std::sort(step_move.begin(), step_move.end());
  const double dx_med = dx[dx.size() / 2], move_med = step_move[step_move.size() / 2];
  INFO("t = 0.8, block - global: median |dx| " << dx_med << ", max " << dx_max << "; median |v| dt "
                                               << move_med);
  CHECK(dx_med < 0.05 * move_med);
  CHECK(dx_max < 1e-3);
}

TEST_CASE("a restarted block run is bit-identical to an uninterrupted one",
          "[validation][restart][block]") {
  const char* yaml = R"(
run: {t_end: 0.8, snapshot_times: [0.3]}
setup: {type: evrard, n_particles: 500}
gravity: {softening: [0.02]}
timestep: {scheme: block, dt_max: 0.1}
)";
  const std::string a = scratch_dir("block_restart_a"), b = scratch_dir("block_restart_b");
  Simulation full(test::run_options(a, yaml));
  REQUIRE(full.run());
  {
    // Two segments of 0.1 take 4 substeps: max_steps = 3 stops at the end of the second, t = 0.2.
    Simulation first(test::run_options(b, yaml, {"run.max_steps=3"}));
    CHECK_FALSE(first.run());
    CHECK(first.time() == 0.2);
  }
  Simulation second(test::restart_options(b));  // the checkpoint still carries max_steps = 3
  REQUIRE(second.run());
  CHECK(second.step_count() == full.step_count());
  // The final states, every field of the store (kept and scratch: rungs, dt_limit, the step
  // bases, ...), and both snapshots (t = 0.3 and 0.8, written after the restart), bit for bit.
  std::string differing;
  CHECK(same_fields(full.particles(), second.particles(), &differing));
  INFO("fields that differ:" << differing);
  CHECK(differing.empty());
  for (const char* name : {"/snapshot_0001.h5", "/snapshot_0002.h5"}) {
    INFO(name);
    std::string diff;
    CHECK(same_fields(read_snapshot(a + name), read_snapshot(b + name), &diff));
    CHECK(diff.empty());
  }
}
