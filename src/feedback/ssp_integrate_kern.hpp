// Integration over stellar mass for the SSP functions: Gauss-Legendre, 8 nodes on each of
// kMassSubintervals equal pieces of [ln a, ln b] (int f(m) dm = int f(m) m dln m). The
// integrands are power laws of m (smooth in ln m) times at most piecewise-linear yields whose
// break points the callers integrate between, so this is accurate to round-off for them
// (tests/feedback/ssp_release_test.cpp compares with a trapezoid rule written separately).
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

constexpr int kMassSubintervals = 4;

template <class F>
MPSPH_HD double integrate_log_mass(const F& f, double a, double b) {
  // Nodes and weights of the 8-point Gauss-Legendre rule on [-1, 1] (positive half).
  const double x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                       0.9602898564975363};
  const double w[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                       0.1012285362903763};
  if (!(b > a)) return 0.0;
  const double la = std::log(a), h = (std::log(b) - la) / kMassSubintervals;
  double sum = 0.0;
  for (int s = 0; s < kMassSubintervals; ++s) {
    const double mid = la + (s + 0.5) * h;
    for (int k = 0; k < 4; ++k)
      for (int sign = -1; sign <= 1; sign += 2) {
        const double m = std::exp(mid + sign * 0.5 * h * x[k]);
        sum += w[k] * 0.5 * h * f(m) * m;
      }
  }
  return sum;
}

}  // namespace mpsph
