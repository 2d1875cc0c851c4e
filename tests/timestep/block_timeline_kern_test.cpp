// The integer timeline of individual time steps: rungs from time-step limits, the rule for larger
// steps, wake-ups, and the exactness of step lengths.
#include "timestep/block_timeline_kern.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch.hpp"

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

TEST_CASE("the timeline has 2^60 ticks per segment and at least 40 rungs", "[timestep][block]") {
  CHECK(kTicks == (int64_t(1) << 60));
  CHECK(kMaxRung + 1 >= 40);  // rungs 0 .. kMaxRung
  // The deepest rung's step is a whole number of ticks, and 2^k steps of rung k fill a segment.
  CHECK(rung_ticks(kMaxRung) >= 1);
  for (int k = 0; k <= kMaxRung; ++k) CHECK(rung_ticks(k) * (int64_t(1) << k) == kTicks);
}

TEST_CASE("rung_for_dt: dt_i = dt_max / 2^k with k the smallest rung within the limit",
          "[timestep][block]") {
  // For every rung: a limit exactly on the rung's step gives that rung, a limit one ulp below it
  // the next rung down (exact: halving is exact in double), and the chosen step never exceeds the
  // limit while the next larger one does.
  const double length = 3.7;  // dt_max: any positive length, not a power of two
  for (int k = 0; k <= kMaxRung; ++k) {
    const double step = std::ldexp(length, -k);
    CHECK(rung_for_dt(step, length) == k);
    const double below = std::nextafter(step, 0.0);
    CHECK(rung_for_dt(below, length) == (k < kMaxRung ? k + 1 : kMaxRung));
    const double mid = 0.75 * step;  // between rung k+1 and rung k
    const int r = rung_for_dt(mid, length);
    if (k < kMaxRung) {
      CHECK(r == k + 1);
      CHECK(std::ldexp(length, -r) <= mid);
      CHECK(std::ldexp(length, -(r - 1)) > mid);
    }
  }
  // Clamping at the deepest rung: any shorter limit still gives kMaxRung, whose step is then
  // longer than the limit (the driver reports this as an error naming dt_max and the rung).
  for (double f : {0.5, 1e-3, 1e-100}) {
    const double dt = f * std::ldexp(length, -kMaxRung);
    CHECK(rung_for_dt(dt, length) == kMaxRung);
    CHECK(std::ldexp(length, -kMaxRung) > dt);
  }
  CHECK(rung_for_dt(-1.0, length) == kMaxRung);
  CHECK(rung_for_dt(std::nan(""), length) == kMaxRung);
}

namespace {

// The reference rule for a particle on rung `old` whose step ends at tick `now` and that wants
// rung `wanted`: a smaller step (wanted >= old) at once; a larger one only as far as `now` is a
// boundary of it, i.e. the smallest k in [wanted, old] with now a multiple of rung_ticks(k).
int reference_rung(int wanted, int old, int64_t now) {
  if (wanted >= old) return wanted;
  for (int k = wanted; k < old; ++k)
    if (now % rung_ticks(k) == 0) return k;
  return old;
}

// Deterministic pseudo-random numbers (a 64-bit LCG, Knuth's MMIX constants).
struct Lcg {
  uint64_t x;
  uint64_t next() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  }
};

}  // namespace

TEST_CASE("aligned_rung: smaller steps at any step end, larger only on the larger rung's boundary",
          "[timestep][block]") {
  // Every rung pair and several step ends of the old rung (including the segment start, where
  // every rung begins, and the last step before the segment end).
  for (int old = 0; old <= kMaxRung; ++old) {
    const int64_t steps = int64_t(1) << old;
    for (int64_t m : {int64_t(0), int64_t(1), int64_t(2), int64_t(3), steps / 2 + 1, steps - 1}) {
      if (m < 0 || m >= steps) continue;
      const int64_t now = m * rung_ticks(old);
      for (int wanted = 0; wanted <= kMaxRung; ++wanted) {
        const int r = aligned_rung(wanted, old, now);
        CHECK(r == reference_rung(wanted, old, now));
        // The new step starts on a boundary of its own rung and ends inside the segment.
        CHECK(now % rung_ticks(r) == 0);
        CHECK(now + rung_ticks(r) <= kTicks);
      }
    }
  }
}

TEST_CASE(
    "a segment of particles with changing rungs: every step ends on its rung's boundary and "
    "all meet at the segment end",
    "[timestep][block]") {
  // 64 particles start on random rungs 0..12 at tick 0. Whenever a particle's step ends it asks
  // for a random rung 0..12; the timeline must give it exactly the reference rule's rung, every
  // substep tick is the earliest step end, and after the last substep every particle ends on
  // kTicks exactly.
  constexpr int kN = 64, kDeep = 12;
  Lcg rng{12345};
  std::vector<int> rung(kN);
  std::vector<int64_t> begin(kN, 0), end(kN);
  for (int i = 0; i < kN; ++i) {
    rung[i] = int(rng.next() % (kDeep + 1));
    end[i] = rung_ticks(rung[i]);
  }
  int64_t now = 0;
  long substeps = 0, grown = 0, shrunk = 0, refused = 0;
  while (now < kTicks) {
    now = *std::min_element(end.begin(), end.end());
    ++substeps;
    for (int i = 0; i < kN; ++i) {
      if (end[i] != now) continue;
      CHECK(end[i] - begin[i] == rung_ticks(rung[i]));  // the step had its rung's length
      if (now == kTicks) continue;
      const int wanted = int(rng.next() % (kDeep + 1));
      const int r = aligned_rung(wanted, rung[i], now);
      CHECK(r == reference_rung(wanted, rung[i], now));
      grown += r < rung[i];
      shrunk += r > rung[i];
      refused += wanted < rung[i] && r != wanted;
      rung[i] = r;
      begin[i] = now;
      end[i] = now + rung_ticks(r);
      CHECK(end[i] <= kTicks);
    }
  }
  for (int i = 0; i < kN; ++i) CHECK(end[i] == kTicks);
  // The sequence exercised all three cases, over many substeps.
  CHECK(substeps > 100);
  CHECK(grown > 0);
  CHECK(shrunk > 0);
  CHECK(refused > 0);
}
