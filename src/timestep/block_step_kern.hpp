// The predictor-corrector in block form (PHYSICS.md section 3), per particle; the OpenMP driver
// (integrator.cpp) and the CUDA driver (integrator_gpu.cu) loop over these.
//
// Every particle keeps the state at the start of its current step (pos0, vel0, acc0 and, for gas,
// u0, dudt0) and the ticks [ti_begin, ti_end) of that step. At each substep, at tick `now`:
//  - predict: every particle, active or not, is moved to `now` from its own step start with the
//    seed predictor over dt = (now - ti_begin) tick_len, so neighbour sums and gravity see one
//    consistent time;
//  - the active particles (ti_end == now) get new forces at that predicted state;
//  - correct: the active ones are corrected over their whole step with (a0 + a1)/2, which becomes
//    the base of their next step.
// An inactive particle thus carries the predicted state of its current step: second order in
// its own dt, as in the global scheme, since its corrector still uses the force at both ends of
// its own step; its density, pressure and sound speed are those of its last force evaluation.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/active_set.hpp"
#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/eos_kern.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator_kern.hpp"

namespace mpsph {

// The current state becomes the base of a new step starting at tick `begin` on `rung`.
MPSPH_HD void begin_particle_step(const ParticleView& v, std::size_t i, int64_t begin, int rung) {
  v.pos0[i] = v.pos[i];
  v.vel0[i] = v.vel[i];
  v.acc0[i] = v.acc[i];
  if (i < v.n_gas) {
    v.u0[i] = v.u[i];
    v.dudt0[i] = v.dudt[i];
    v.rho0[i] = v.rho[i];
    v.h0[i] = v.h[i];
  }
  v.rung[i] = uint8_t(rung);
  v.ti_begin[i] = begin;
  v.ti_end[i] = begin + rung_ticks(rung);
  v.rung_wake[i] = 0;
}

// Moves particle i to tick `now` from the start of its current step. Gas: u with its du/dt; the
// density and smoothing length drift with the velocity divergence of the last evaluation,
// rho = rho0 exp(-div v dt), h = h0 exp(div v dt / 3) (as GADGET-2 and SWIFT drift inactive
// particles), and the pressure and sound speed (and u, for a non-adiabatic EOS) follow from the
// EOS. Active particles get all of these anew from the density and force stages.
MPSPH_HD void predict_particle(const ParticleView& v, std::size_t i, int64_t now, double tick_len,
                               const Box& box, const EosParams& eos) {
  const double dt = double(now - v.ti_begin[i]) * tick_len;
  const KinematicState p = predict_kinematics(v.pos0[i], v.vel0[i], v.acc0[i], dt);
  v.pos[i] = wrap_position(p.pos, box);
  v.vel[i] = p.vel;
  if (i < v.n_gas) {
    v.u[i] = predict_energy(v.u0[i], v.dudt0[i], dt);
    const double x = double(v.divv[i]) * dt;
    v.rho[i] = float(double(v.rho0[i]) * exp(-x));
    v.h[i] = float(double(v.h0[i]) * exp(x / 3.0));
    apply_eos(eos, v, i);
  }
}

// The length of active particle i's current step (code time).
MPSPH_HD double particle_step(const ParticleView& v, std::size_t i, double tick_len) {
  return double(v.ti_end[i] - v.ti_begin[i]) * tick_len;
}

// Corrects active particle i over its whole step with the new acceleration (and u unless a module
// integrated it), and makes the result the base of its next step (which starts at ti_end; its
// rung is set by new_rung_particle).
MPSPH_HD void correct_particle(const ParticleView& v, std::size_t i, double tick_len,
                               const Box& box, bool correct_u) {
  const double dt = particle_step(v, i, tick_len);
  const KinematicState c = correct_kinematics(v.pos0[i], v.vel0[i], v.acc0[i], v.acc[i], dt);
  v.pos[i] = wrap_position(c.pos, box);
  v.vel[i] = c.vel;
  if (correct_u && i < v.n_gas) v.u[i] = correct_energy(v.u0[i], v.dudt0[i], v.dudt[i], dt);
  v.pos0[i] = v.pos[i];
  v.vel0[i] = v.vel[i];
  v.acc0[i] = v.acc[i];
  if (i < v.n_gas) {
    v.u0[i] = v.u[i];
    v.dudt0[i] = v.dudt[i];
    v.rho0[i] = v.rho[i];
    v.h0[i] = v.h[i];
  }
  v.ti_begin[i] = v.ti_end[i];
}

// Particle i's mass changes from m to m1 between the force evaluation and the corrector (the
// cold phase's exchanges, SSP feedback's ejecta): its
// accelerations and du/dt (per unit mass) are scaled by m/m1, so the corrector applies the same
// forces m a and heating m du/dt that its pair partners got the opposite of (momentum and energy
// of the SPH and gravity pairs stay conserved).
MPSPH_HD void keep_forces(const ParticleView& p, std::size_t i, double m, double m1) {
  const double f = m / m1;
  p.acc[i] *= f;
  p.acc0[i] *= f;
  p.dudt[i] *= f;
  p.dudt0[i] *= f;
}

// The limiter's reference step of a neighbour whose current step ends at tick ti_end on `rung`,
// with criterion dt_crit, at tick `now`: its new criterion when it is active (its step ends now,
// or now = kAllActive), the step of its rung otherwise.
MPSPH_HD double limiter_reference_step(double dt_crit, int64_t ti_end, int rung, int64_t now,
                                       double length) {
  return now == kAllActive || ti_end == now ? dt_crit : ldexp(length, -rung);
}

// limiter_reference_step of neighbour j.
MPSPH_HD double limiter_reference(const ParticleView& v, std::size_t j, int64_t now,
                                  double length) {
  return limiter_reference_step(v.dt_crit[j], v.ti_end[j], int(v.rung[j]), now, length);
}

// The rung of active particle i's next step, which starts at `now` (< kTicks), from its limited
// time step; returns false when even the smallest rung is too long for it.
MPSPH_HD bool new_rung_particle(const ParticleView& v, std::size_t i, int64_t now, double length) {
  const int wanted = rung_for_dt(v.dt_limit[i], length);
  const int rung = aligned_rung(wanted, v.rung[i], now);
  v.rung[i] = uint8_t(rung);
  v.ti_end[i] = now + rung_ticks(rung);
  return !(wanted == kMaxRung && ldexp(length, -kMaxRung) > v.dt_limit[i]);
}

// Whether neighbour j of an active particle that asks for rung `want` needs a wake-up request:
// its rung is below that and it is not active at `now`. The active particles' steps begin at now,
// but so do those of particles a module synchronised (sync_particle), so the active list decides
// (ActiveSet::holds, searched only for those few).
MPSPH_HD bool needs_wake(const ParticleView& v, const ActiveSet& a, std::size_t j, int64_t now,
                         int32_t want) {
  return int32_t(v.rung[j]) < want && (v.ti_begin[j] != now || !a.holds(j));
}

// Applies a wake-up requested for particle j (rung_wake above its rung) and clears the request.
// Requests are made only for particles that are not active at `now` (the limiter tests the active
// list, the sinks ti_end == now before the rungs move on); such a particle's step may have begun at
// now all the same, when a module synchronised it there (sync_particle).
MPSPH_HD void wake_particle(const ParticleView& v, std::size_t j, int64_t now) {
  const int want = v.rung_wake[j];
  v.rung_wake[j] = 0;
  if (want <= int(v.rung[j])) return;
  const int64_t end = woken_end(now, v.ti_end[j], want);
  if (end < v.ti_end[j]) {
    v.ti_end[j] = end;
    v.rung[j] = uint8_t(want);
  }
}

// Synchronisation of Durier & Dalla Vecchia (2012), as SWIFT does it: inactive particle j, whose
// state a module changed at tick `now` (feedback heated it), ends its current step there. Its
// predicted state at now, with the module's change, becomes the base of a new step [now, end) on
// rung max(rung, rung_j), ending at the first boundary of that rung after now (the old end when
// the rung stays). The part of the old step before now is thereby integrated with the force of
// its start alone (the predictor), and the new step's corrector applies the heated state's du/dt
// and forces only after the injection.
MPSPH_HD void sync_particle(const ParticleView& v, std::size_t j, int64_t now, int rung) {
  const int r = rung > int(v.rung[j]) ? rung : int(v.rung[j]);
  const int64_t end = woken_end(now, v.ti_end[j], r);
  begin_particle_step(v, j, now, r);
  v.ti_end[j] = end;
}

}  // namespace mpsph
