// The seed predictor-corrector (PEC: one force evaluation per step at the predicted state) on
// problems with known solutions.
#include "timestep/integrator.hpp"

#include <cfloat>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator_kern.hpp"
#include "timestep/timestep_kern.hpp"

using namespace mpsph;

namespace {
constexpr double kTwoPi = 6.283185307179586;

// Harmonic oscillator a = -x from x = 1, v = 0 over one period; returns the phase-space error
// |(x, v) - (cos t, -sin t)| (the position error alone is O(dt^3) at a full period by symmetry,
// the phase error shows in v).
double oscillator_error(int steps) {
  const double dt = kTwoPi / steps;
  Vec3d x{1, 0, 0}, v{0, 0, 0};
  Vec3d a = -x;
  for (int n = 0; n < steps; ++n) {
    const KinematicState p = predict_kinematics(x, v, a, dt);
    const Vec3d ap = -p.pos;  // force at the predicted position
    const KinematicState c = correct_kinematics(x, v, a, ap, dt);
    x = c.pos, v = c.vel, a = ap;
  }
  return std::sqrt(norm2(x - Vec3d{1, 0, 0}) + norm2(v));
}
}  // namespace

TEST_CASE("predictor-corrector is second-order accurate", "[timestep]") {
  // A second-order scheme's global error falls by 4 when dt halves; allow 3.5-4.5 for the
  // higher-order remainder at these step counts.
  const double e1 = oscillator_error(200), e2 = oscillator_error(400), e3 = oscillator_error(800);
  CHECK(e1 / e2 == Approx(4.0).margin(0.5));
  CHECK(e2 / e3 == Approx(4.0).margin(0.5));
  CHECK(e3 < 1e-3);
}

TEST_CASE("predictor-corrector integrates constant acceleration exactly", "[timestep]") {
  // x = x0 + v0 t + a t^2/2 is reproduced to round-off by the trapezoidal corrector.
  const Vec3d a{0.3, -1.0, 2.0}, x0{1, 2, 3}, v0{-1, 0.5, 0};
  Vec3d x = x0, v = v0;
  const double dt = 0.01;
  for (int n = 0; n < 100; ++n) {
    const KinematicState c = correct_kinematics(x, v, a, a, dt);
    x = c.pos, v = c.vel;
  }
  const double t = 1.0;
  const Vec3d exact = x0 + t * v0 + (0.5 * t * t) * a;
  CHECK(norm(x - exact) < 1e-12);
  CHECK(norm(v - (v0 + t * a)) < 1e-12);
  // Energy: u' = const is exact too.
  double u = 1.0;
  for (int n = 0; n < 100; ++n) u = correct_energy(u, -0.5, -0.5, dt);
  CHECK(u == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("time-step criteria follow the seed formula and switches", "[timestep]") {
  TimestepCriteria c{0.1, true, true, true, true, false, false};  // seed form
  TimestepInput in{};
  in.gas = true;
  in.h = 0.5;
  in.acc = {0, 0, 8.0};  // sqrt(2 h/|a|) = sqrt(1/8) = 0.35355
  in.vel = {0, 2.0, 0};  // h/|v| = 0.25
  in.csound = 4.0;       // h/c = 0.125
  in.u = 1.0;
  in.dudt = -10.0;  // u/|du/dt| = 0.1  <- the minimum
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.1));
  // Default form: u/|du/dt| limits heating only; cooling is left to the positivity limiter.
  c.energy_heating_only = true;
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.125));
  in.dudt = +10.0;
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.1));
  c.use_energy = false;
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.125));
  c.use_sound = false;
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.25));
  c.use_velocity = false;
  CHECK(particle_timestep(in, c) == Approx(0.1 * std::sqrt(1.0 / 8.0)));
  c.use_signal_velocity = true;
  in.vsig = 100.0;  // h/v_sig = 0.005
  CHECK(particle_timestep(in, c) == Approx(0.1 * 0.005));
  // A collisionless particle only sees the acceleration criterion.
  TimestepInput dm{};
  dm.h = 0.02;
  dm.acc = {2.0, 0, 0};
  dm.vel = {100, 0, 0};
  CHECK(particle_timestep(dm, TimestepCriteria{0.1, true, true, true, true, true, false}) ==
        Approx(0.1 * std::sqrt(0.02)));
  // Nothing limits a particle at rest with no forces.
  TimestepInput rest{};
  rest.h = 1.0;
  CHECK(particle_timestep(rest, c) == DBL_MAX);
}

TEST_CASE("an energy update can at most halve u", "[timestep]") {
  // Positivity limiter (GADGET-2): any cooling step keeps u >= u_old / 2 > 0.
  CHECK(predict_energy(1.0, -100.0, 1.0) == 0.5);
  CHECK(correct_energy(1.0, -3.0, -1.0, 1.0) == 0.5);
  CHECK(correct_energy(1.0, -0.2, -0.4, 1.0) == Approx(0.7));
  CHECK(predict_energy(1.0, 2.0, 0.5) == 2.0);
}

TEST_CASE("the energy criterion sees hydro plus radiative du/dt (the cooling time)", "[timestep]") {
  ParticleStore s;
  s.resize(1);  // type 0 (gas) by default
  ParticleView v = s.view();
  v.h[0] = 1.0f;
  v.csound[0] = 1.0f;  // h/c = 1
  v.u[0] = 2.0;
  v.dudt[0] = 1.0;        // hydro heating: u/|du/dt| = 2 alone
  v.dudt_cool[0] = -5.0;  // net -4: u/|du/dt| = 0.5
  const TimestepInput in = timestep_input(v, 0, SofteningByType{});
  CHECK(in.dudt == -4.0);
  CHECK(particle_timestep(in, TimestepCriteria{0.1, false, false, true, true, false, false}) ==
        Approx(0.1 * 0.5));
}

TEST_CASE("substep_active_set: the particles whose step ends at the substep, or all of them",
          "[timestep]") {
  ParticleStore s;
  s.resize(6);
  for (std::size_t i = 0; i < 6; ++i) s.type[i] = i < 3 ? uint8_t(kGas) : uint8_t(kDarkMatter);
  const int64_t now = kTicks / 4;
  const int64_t ends[6] = {now, kTicks, now, kTicks / 2, now, kTicks};
  for (std::size_t i = 0; i < 6; ++i) s.ti_end[i] = ends[i];
  std::vector<uint32_t> index;
  const ActiveSet a = substep_active_set(s, now, true, index);
  REQUIRE_FALSE(a.all());
  CHECK(a.count(6) == 3);
  CHECK(a.gas_count(3) == 2);  // gas first: 0 and 2, then the dark-matter particle 4
  CHECK((a[0] == 0 && a[1] == 2 && a[2] == 4));
  CHECK(a.tick == now);
  // No step ends here (an MPI rank's substep): an empty set, not every particle.
  const ActiveSet none = substep_active_set(s, kTicks / 8, true, index);
  CHECK_FALSE(none.all());
  CHECK(none.count(6) == 0);
  // Every particle: the global scheme, a synchronisation point, a segment's end.
  CHECK(substep_active_set(s, now, false, index).all());
  CHECK(substep_active_set(s, kAllActive, true, index).all());
  CHECK(substep_active_set(s, kTicks, true, index).all());
}
