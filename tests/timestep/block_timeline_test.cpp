// The integer timeline of individual time steps: rungs from time-step limits, the rule for larger
// steps, wake-ups, and the exactness of step lengths.
#include <cmath>

#include "catch.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

TEST_CASE("rung_for_dt gives the largest power-of-two fraction of the segment within dt",
          "[timestep][block]") {
  CHECK(rung_for_dt(1.0, 1.0) == 0);
  CHECK(rung_for_dt(5.0, 1.0) == 0);
  CHECK(rung_for_dt(0.5, 1.0) == 1);  // exactly on a rung
  CHECK(rung_for_dt(0.3, 1.0) == 2);  // 0.25 <= 0.3 < 0.5
  CHECK(rung_for_dt(0.2499, 1.0) == 3);
  CHECK(rung_for_dt(std::ldexp(3.0, -41), 4.0) == 42);  // 4/2^42 <= 1.5/2^40 < 4/2^41
  CHECK(rung_for_dt(1e-30, 1.0) == kMaxRung);           // the caller reports this one
  CHECK(rung_for_dt(0.0, 1.0) == kMaxRung);
  CHECK(rung_for_dt(HUGE_VAL, 1.0) == 0);  // nothing limits the particle
  for (int k = 0; k <= kMaxRung; ++k) {
    const double dt = std::ldexp(0.7, -k);
    const int r = rung_for_dt(dt, 0.7);
    CHECK(r == k);
    CHECK(std::ldexp(0.7, -r) <= dt);
  }
  CHECK(kMaxRung >= 40);  // issue 11: at least 40 rungs
}

TEST_CASE("a step grows only where the larger rung's steps begin", "[timestep][block]") {
  // At tick 3 * 2^57 (a boundary of rung 3 only) a particle on rung 3 cannot move to rung 1.
  const int64_t t3 = 3 * rung_ticks(3);
  CHECK(aligned_rung(1, 3, t3) == 3);
  // At 2^58 (boundary of rung 2, not of rung 1) it gets rung 2.
  CHECK(aligned_rung(1, 3, rung_ticks(2)) == 2);
  CHECK(aligned_rung(0, 3, 0) == 0);  // segment start: every rung begins there
  // Smaller steps are always allowed.
  CHECK(aligned_rung(7, 3, t3) == 7);
  // Every step taken by the rule ends on a boundary of its rung.
  int64_t now = 0;
  int rung = 5;
  const int wanted[] = {2, 6, 1, 1, 4, 0, 0, 3, 0, 0, 0, 0, 0, 0};
  for (int w : wanted) {
    rung = aligned_rung(w, rung, now);
    CHECK(now % rung_ticks(rung) == 0);
    now += rung_ticks(rung);
    if (now == kTicks) break;
  }
  CHECK(now <= kTicks);
}

TEST_CASE("a woken particle's step ends at the next boundary of the required rung",
          "[timestep][block]") {
  const int64_t now = rung_ticks(3);  // 2^57
  const int64_t end = rung_ticks(1);  // its step on rung 1 would end at 2^59
  CHECK(woken_end(now, end, 8) == now + rung_ticks(8));
  // Not aligned: now = 2^57 + 2^40, rung 8 boundary after that.
  const int64_t odd = now + (int64_t(1) << 40);
  CHECK(woken_end(odd, end, 8) == now + rung_ticks(8));
  // A step that ends earlier anyway stays.
  CHECK(woken_end(now, now + rung_ticks(10), 8) == now + rung_ticks(10));
}

TEST_CASE("step lengths on the integer timeline are exact in double", "[timestep][block]") {
  // 2^20 steps of rung 20 in a segment of length L: the integer clock lands exactly on the
  // segment end and every time read from it is monotonic, while adding the double step lengths
  // drifts (which is why the code never does that).
  const double length = 0.123456789;
  const double tick = length / double(kTicks);
  int64_t t = 0;
  double previous = 0.0;
  bool monotonic = true;
  for (int k = 0; k < (1 << 20); ++k) {
    t += rung_ticks(20);
    const double now = double(t) * tick;
    monotonic = monotonic && now > previous;
    previous = now;
  }
  CHECK(t == kTicks);
  CHECK(monotonic);
  CHECK(double(t) * tick == length);  // the segment end, from the tick
}

TEST_CASE("the limiter bound is rung_j - log2(factor)", "[timestep][block]") {
  CHECK(limited_rung(3, 10, 2) == 8);
  CHECK(limited_rung(9, 10, 2) == 9);
  CHECK(limited_rung(0, 1, 2) == 0);
}
