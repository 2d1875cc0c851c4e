// The exact-N_B smoothing-length rule of smoothing_length.hpp as pure MPSPH_HD functions, shared
// by the CPU driver (smoothing_length.cpp) and the CUDA driver (smoothing_length_gpu.cu), so both
// backends turn the same two neighbour distances into the same float h.
#pragma once

#include <cmath>
#include <limits>

#include "core/annotation.hpp"

namespace mpsph {

// (2h)^2 in double; exact, since 2h has a 24-bit mantissa.
MPSPH_HD double support2(float h) {
  const double t = 2.0 * double(h);
  return t * t;
}

// The float h with d2_in < (2h)^2 <= d2_out nearest to (sqrt(d2_in) + sqrt(d2_out))/4, or, when
// no float satisfies both (ties), the smallest float h with d2_in < (2h)^2.
MPSPH_HD float smoothing_length_between(double d2_in, double d2_out) {
  float h = float(0.25 * (std::sqrt(d2_in) + std::sqrt(d2_out)));
  const float inf = std::numeric_limits<float>::infinity();
  while (!(support2(h) > d2_in)) h = std::nextafter(h, inf);
  while (support2(h) > d2_out) {
    const float lower = std::nextafter(h, 0.f);
    if (!(support2(lower) > d2_in)) break;
    h = lower;
  }
  return h;
}

}  // namespace mpsph
