// The predictor-corrector in block form (block_step_kern.hpp): what an inactive particle carries
// (its predicted state, rho and h drifted with div v), and second order for coupled particles on
// different rungs.
#include "timestep/block_step_kern.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/sph_params.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

TEST_CASE(
    "an inactive gas particle is predicted from its step start: x, v, u, and rho and h "
    "drifted with div v",
    "[timestep][block]") {
  ParticleStore s;
  s.resize(1);
  s.type[0] = kGas;
  s.mass[0] = 1.0;
  s.pos0[0] = {1.0, 2.0, 3.0};
  s.vel0[0] = {0.5, -1.0, 0.25};
  s.acc0[0] = {-2.0, 0.5, 1.0};
  s.u0[0] = 2.0;
  s.dudt0[0] = -0.75;
  s.rho0[0] = 4.0f;
  s.h0[0] = 0.1f;
  s.divv[0] = -3.0f;  // converging: rho rises, h falls
  s.ti_begin[0] = 0;
  s.ti_end[0] = kTicks;
  const ParticleView v = s.view();
  const double length = 0.2, tick_len = length / double(kTicks);
  const int64_t now = 3 * rung_ticks(2);  // 3/4 of the step
  const double dt = 0.75 * length;
  EosParams eos;  // adiabatic, gamma = 5/3
  predict_particle(v, 0, now, tick_len, Box{}, eos);
  // The seed predictor: v = v0 + a0 dt, x = x0 + (v0 + v) dt / 2 = x0 + v0 dt + a0 dt^2 / 2.
  CHECK(s.vel[0].x == Approx(0.5 - 2.0 * dt).epsilon(1e-15));
  CHECK(s.pos[0].y == Approx(2.0 - dt + 0.25 * dt * dt).epsilon(1e-15));
  CHECK(s.pos[0].z == Approx(3.0 + 0.25 * dt + 0.5 * dt * dt).epsilon(1e-15));
  CHECK(s.u[0] == Approx(2.0 - 0.75 * dt).epsilon(1e-15));
  // Continuity: drho/dt = -rho div v; h follows rho^(-1/3), so rho h^3 (the mass inside the
  // kernel) stays fixed. Stored in float: 1e-6.
  CHECK(double(s.rho[0]) == Approx(4.0 * std::exp(3.0 * dt)).epsilon(1e-6));
  CHECK(double(s.h[0]) == Approx(0.1 * std::exp(-dt)).epsilon(1e-6));
  const double rho_h3 = double(s.rho[0]) * std::pow(double(s.h[0]), 3);
  CHECK(rho_h3 == Approx(4.0 * 1e-3).epsilon(3e-6));
  // Pressure and sound speed from the EOS at the drifted rho and u.
  const double p = (5.0 / 3.0 - 1.0) * double(s.rho[0]) * s.u[0];
  CHECK(double(s.pressure[0]) == Approx(p).epsilon(1e-6));
  CHECK(double(s.csound[0]) == Approx(std::sqrt(5.0 / 3.0 * p / double(s.rho[0]))).epsilon(1e-6));
  // At its own step start nothing moves.
  predict_particle(v, 0, 0, tick_len, Box{}, eos);
  CHECK(s.pos[0].x == 1.0);
  CHECK(s.u[0] == 2.0);
  CHECK(s.rho[0] == 4.0f);
  CHECK(s.h[0] == 0.1f);
}

namespace {

// Two particles on a line, coupled by springs: x_A'' = -wA^2 x_A + c (x_B - x_A),
// x_B'' = -wB^2 x_B + c (x_A - x_B); B oscillates 8 times faster and is put 3 rungs deeper.
constexpr double kWA = 1.0, kWB = 8.0, kC = 2.0;

double force_on(int i, const ParticleStore& s) {
  const double xa = s.pos[0].x, xb = s.pos[1].x;
  return i == 0 ? -kWA * kWA * xa + kC * (xb - xa) : -kWB * kWB * xb + kC * (xa - xb);
}

// Exact solution from x(0) = (1, 0.3), v(0) = (0, 0): normal modes of K = [[a, -c], [-c, b]].
void exact(double t, double x[2], double v[2]) {
  const double a = kWA * kWA + kC, b = kWB * kWB + kC;
  const double tr = a + b, det = a * b - kC * kC;
  const double l1 = 0.5 * (tr - std::sqrt(tr * tr - 4 * det)), l2 = tr - l1;
  // Eigenvectors (c, a - l) normalised.
  double e[2][2];
  for (int m = 0; m < 2; ++m) {
    const double l = m == 0 ? l1 : l2;
    const double ex = kC, ey = a - l, n = std::sqrt(ex * ex + ey * ey);
    e[m][0] = ex / n, e[m][1] = ey / n;
  }
  const double x0[2] = {1.0, 0.3};
  x[0] = x[1] = v[0] = v[1] = 0;
  for (int m = 0; m < 2; ++m) {
    const double w = std::sqrt(m == 0 ? l1 : l2);
    const double q = e[m][0] * x0[0] + e[m][1] * x0[1];
    for (int k = 0; k < 2; ++k) {
      x[k] += e[m][k] * q * std::cos(w * t);
      v[k] -= e[m][k] * q * w * std::sin(w * t);
    }
  }
}

struct BlockRun {
  double error;   // phase-space error of both particles at the end
  long substeps;  // force evaluations of particle B (A takes 1/8 of them)
};

// Integrates to t_end with segments of `length`, A on rung 0 and B on rung 3, exactly as the
// drivers do: predict everyone to the substep's tick, forces of the active particles at that
// predicted state, correct the active ones over their own steps.
BlockRun block_run(double length, double t_end) {
  ParticleStore s;
  s.resize(2);
  for (int i = 0; i < 2; ++i) {
    s.type[i] = kDarkMatter;
    s.mass[i] = 1.0;
    s.vel[i] = {0, 0, 0};
  }
  s.pos[0] = {1.0, 0, 0};
  s.pos[1] = {0.3, 0, 0};
  for (int i = 0; i < 2; ++i) s.acc[i] = {force_on(i, s), 0, 0};
  const ParticleView v = s.view();
  const int rung[2] = {0, 3};
  const double tick_len = length / double(kTicks);
  const EosParams eos;
  long substeps = 0;
  const long segments = std::lround(t_end / length);
  for (long seg = 0; seg < segments; ++seg) {
    for (int i = 0; i < 2; ++i) begin_particle_step(v, std::size_t(i), 0, rung[i]);
    int64_t now = 0;
    while (now < kTicks) {
      now = std::min(s.ti_end[0], s.ti_end[1]);
      for (int i = 0; i < 2; ++i) predict_particle(v, std::size_t(i), now, tick_len, Box{}, eos);
      bool active[2];
      for (int i = 0; i < 2; ++i) active[i] = s.ti_end[i] == now;
      for (int i = 0; i < 2; ++i)
        if (active[i]) s.acc[i] = {force_on(i, s), 0, 0};
      for (int i = 0; i < 2; ++i)
        if (active[i]) {
          correct_particle(v, std::size_t(i), tick_len, Box{}, false);
          s.dt_limit[i] = std::ldexp(length, -rung[i]);  // keeps its rung
          if (now < kTicks) REQUIRE(new_rung_particle(v, std::size_t(i), now, length));
          CHECK(int(s.rung[i]) == rung[i]);
        }
      ++substeps;
    }
  }
  double x[2], vx[2];
  exact(double(segments) * length, x, vx);
  double e2 = 0;
  for (int i = 0; i < 2; ++i) {
    e2 += (s.pos[i].x - x[i]) * (s.pos[i].x - x[i]);
    e2 += (s.vel[i].x - vx[i]) * (s.vel[i].x - vx[i]) / (kWB * kWB);  // velocities scaled to x
  }
  return {std::sqrt(e2), substeps};
}

}  // namespace

TEST_CASE("the block predictor-corrector is second order for coupled particles on different rungs",
          "[timestep][block]") {
  // Halving every step (the segment length, the rungs fixed) must cut the error by 4 like the
  // global scheme's (integrator_test.cpp): the inactive particle's predicted state enters its
  // neighbour's forces with an O(dt^3) position error per step, and each particle's corrector
  // uses the forces at both ends of its own step.
  const double t_end = 4.0;
  const BlockRun r1 = block_run(t_end / 32, t_end), r2 = block_run(t_end / 64, t_end),
                 r3 = block_run(t_end / 128, t_end);
  INFO("errors " << r1.error << " " << r2.error << " " << r3.error);
  CHECK(r1.substeps == 32 * 8);  // B's substeps; A's step ends coincide with every 8th
  CHECK(r1.error / r2.error == Approx(4.0).margin(0.5));
  CHECK(r2.error / r3.error == Approx(4.0).margin(0.5));
  // And it converges to the exact solution (measured 1.1e-3 at 128 segments, 2026-11-25).
  CHECK(r3.error < 2e-3);
}
