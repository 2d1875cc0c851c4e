// Individual power-of-two time steps on an integer timeline (PHYSICS.md section 3; as in
// GADGET-2/4 and SWIFT). Pure functions shared by both backends.
//
// The run is cut into synchronisation segments [T0, T0 + L]: L = min(timestep.dt_max, time to the
// next output) under the block scheme, L = the global step under the global scheme. Inside a
// segment time is an integer tick in [0, kTicks] (t = T0 + tick L / kTicks), so times never drift.
// A particle on rung k takes steps of kTicks / 2^k ticks, i.e. dt = L / 2^k; every step starts
// and ends on a multiple of its own length, so all particles meet at the segment's end.
//
//  - Rung from a time-step limit: the smallest k with L / 2^k <= dt (rung_for_dt).
//  - A particle may move to a smaller step at the end of any of its steps, to a larger one only
//    when the end of its current step is a boundary of the larger rung (aligned_rung).
//  - Limiter (Saitoh & Makino 2009): rung_i >= rung_j - d for every gas neighbour j, with
//    2^d = timestep.limiter_factor.
//  - Wake-up: an inactive particle whose neighbour took a rung above rung_i + d has its current
//    step cut short, to end at the first boundary of the required rung after now (woken_end).
//
// Differences of ticks up to 2^kMaxRung are exact in double (kMaxRung <= 52): the step length
// (ti_end - ti_begin) * L / kTicks is exact up to the one rounding of L / kTicks.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"

namespace mpsph {

constexpr int kTickBits = 60;
constexpr int64_t kTicks = int64_t(1) << kTickBits;  // ticks per segment
constexpr int kMaxRung = 50;                         // 51 rungs: dt down to L / 2^50
// `now` of a synchronisation point outside a segment (the start of a run, a restart): every
// particle is active there, whatever its ti_end says.
constexpr int64_t kAllActive = -1;

MPSPH_HD int64_t rung_ticks(int rung) {
  return int64_t(1) << (kTickBits - rung);
}

// The smallest rung k <= kMaxRung with L / 2^k <= dt (kMaxRung when even that is too long; the
// caller checks). dt <= 0 or not finite gives kMaxRung.
MPSPH_HD int rung_for_dt(double dt, double length) {
  if (!(dt > 0.0) || !(dt < 1e300)) return dt >= 1e300 ? 0 : kMaxRung;
  int k = 0;
  double step = length;
  while (step > dt && k < kMaxRung) {
    step *= 0.5;  // exact: halving a double
    ++k;
  }
  return k;
}

// The rung a particle takes for its next step, which starts at tick `now`: `wanted`, or the
// smallest larger-step rung that `now` is a boundary of when wanted < old (a step may only grow
// where the larger rung's steps begin).
MPSPH_HD int aligned_rung(int wanted, int old_rung, int64_t now) {
  int k = wanted < 0 ? 0 : wanted;
  if (k < old_rung)
    while (k < old_rung && (now & (rung_ticks(k) - 1)) != 0) ++k;
  return k;
}

// End tick of an inactive particle's current step [.., end) after a wake-up to `rung` at tick
// `now` (its neighbours are being updated at `now`): the first boundary of `rung` after now, if
// that comes before `end`; otherwise `end` stays.
MPSPH_HD int64_t woken_end(int64_t now, int64_t end, int rung) {
  const int64_t step = rung_ticks(rung);
  const int64_t next = (now & ~(step - 1)) + step;
  return next < end ? next : end;
}

// The limiter's bound from one neighbour: rung_i >= rung_j - d.
MPSPH_HD int limited_rung(int rung, int neighbour_rung, int d) {
  const int bound = neighbour_rung - d;
  return bound > rung ? bound : rung;
}

}  // namespace mpsph
