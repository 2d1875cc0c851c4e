// Counter-based random numbers: pure functions of (id, step, stream, draw), uniform on [0, 1), and
// independent across ids, steps, streams and draws.
#include "core/rng.hpp"

#include <cmath>
#include <cstdint>
#include <functional>

#include "catch.hpp"

using namespace mpsph;

namespace {

constexpr std::size_t kN = 1000000;

// Sample correlation coefficient of two sequences of uniforms given by f(i), g(i).
double correlation(const std::function<double(uint64_t)>& f,
                   const std::function<double(uint64_t)>& g) {
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (uint64_t i = 0; i < kN; ++i) {
    const double x = f(i), y = g(i);
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  const double n = double(kN);
  const double cov = sxy / n - (sx / n) * (sy / n);
  return cov / std::sqrt((sxx / n - (sx / n) * (sx / n)) * (syy / n - (sy / n) * (sy / n)));
}

}  // namespace

TEST_CASE("rng: values are a pure function of the counters", "[core][rng]") {
  // The same counters give the same bits, whatever was drawn in between.
  const uint64_t a = random_bits(12345, 678, kStreamStarFormation, 3);
  for (uint32_t d = 0; d < 100; ++d) random_bits(12345, 678, kStreamStarFormation, d);
  CHECK(random_bits(12345, 678, kStreamStarFormation, 3) == a);
  CHECK(random_uniform(12345, 678, kStreamStarFormation, 3) ==
        double(a >> 11) * (1.0 / 9007199254740992.0));
  // Changing any one counter changes the value (a 64-bit collision has probability 2^-64).
  CHECK(random_bits(12346, 678, kStreamStarFormation, 3) != a);
  CHECK(random_bits(12345, 679, kStreamStarFormation, 3) != a);
  CHECK(random_bits(12345, 678, kStreamFeedback, 3) != a);
  CHECK(random_bits(12345, 678, kStreamStarFormation, 4) != a);
  // SplitMix64 reference value: the finaliser of 0 (Steele, Lea & Flood 2014; also the first
  // output of the java.util.SplittableRandom generator seeded with 0).
  CHECK(splitmix64(0) == 0xE220A8397B1DCDAFull);
}

TEST_CASE("rng: uniform mean and variance over 1e6 draws", "[core][rng]") {
  double s = 0, s2 = 0, lo = 1, hi = 0;
  for (uint64_t i = 0; i < kN; ++i) {
    const double x = random_uniform(i, 7, kStreamSetup);
    s += x, s2 += x * x;
    lo = std::fmin(lo, x), hi = std::fmax(hi, x);
  }
  const double n = double(kN);
  const double mean = s / n, var = s2 / n - mean * mean;
  // Uniform on [0,1): mean 1/2 with standard error sqrt(1/12/n); variance 1/12 with standard
  // error sqrt((mu4 - sigma^4)/n) = sqrt((1/80 - 1/144)/n) = sqrt(1/(180 n)). 5 sigma bounds.
  CHECK(std::fabs(mean - 0.5) < 5 * std::sqrt(1.0 / 12.0 / n));
  CHECK(std::fabs(var - 1.0 / 12.0) < 5 * std::sqrt(1.0 / 180.0 / n));
  CHECK(lo >= 0.0);
  CHECK(hi < 1.0);
  // The extremes of 1e6 uniforms lie within ~1e-6 of the ends; 2e-5 is a 20-sigma margin.
  CHECK(lo < 2e-5);
  CHECK(hi > 1 - 2e-5);
}

TEST_CASE("rng: ids, steps, streams and draws are uncorrelated", "[core][rng]") {
  // For independent sequences the sample correlation is ~N(0, 1/n): |r| < 5/sqrt(n) at 5 sigma.
  const double bound = 5.0 / std::sqrt(double(kN));
  // Neighbouring ids (the common case: particles numbered 0..N-1).
  CHECK(std::fabs(correlation([](uint64_t i) { return random_uniform(i, 0, kStreamSetup); },
                              [](uint64_t i) { return random_uniform(i + 1, 0, kStreamSetup); })) <
        bound);
  // One particle on consecutive steps.
  CHECK(std::fabs(correlation([](uint64_t i) { return random_uniform(42, i, kStreamSetup); },
                              [](uint64_t i) { return random_uniform(42, i + 1, kStreamSetup); })) <
        bound);
  // Two streams at the same counters.
  CHECK(std::fabs(correlation([](uint64_t i) { return random_uniform(i, 5, kStreamStarFormation); },
                              [](uint64_t i) { return random_uniform(i, 5, kStreamFeedback); })) <
        bound);
  // Successive draws of one (id, step, stream).
  CHECK(std::fabs(correlation([](uint64_t i) { return random_uniform(i, 5, kStreamSetup, 0); },
                              [](uint64_t i) { return random_uniform(i, 5, kStreamSetup, 1); })) <
        bound);
  // id and step swapped: the counters enter asymmetrically.
  CHECK(std::fabs(correlation([](uint64_t i) { return random_uniform(i, 3, kStreamSetup); },
                              [](uint64_t i) { return random_uniform(3, i, kStreamSetup); })) <
        bound);
}
