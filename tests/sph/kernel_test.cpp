// M4 cubic spline: normalisation, derivative, and float vs double agreement.
#include <cmath>

#include "catch.hpp"
#include "core/constants.hpp"
#include "sph/kernel_kern.hpp"

using namespace mpsph;

namespace {

// 4 pi int_0^{2h} W(r) r^2 dr by composite Simpson on [0, h] and [h, 2h] separately (W is a
// polynomial on each, so the rule converges as (h/n)^4).
template <class T>
double kernel_integral(double h, int n) {
  double sum = 0.0;
  for (int piece = 0; piece < 2; ++piece) {
    const double a = piece * h, dr = h / n;
    for (int k = 0; k <= n; ++k) {
      const double r = a + k * dr;
      const double w = (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0);
      sum += w * double(kernel_w<T>(T(r), T(h))) * r * r * dr / 3.0;
    }
  }
  return 4.0 * cgs::kPi * sum;
}

}  // namespace

TEST_CASE("M4 kernel is normalised to 1 over its support 2h", "[sph][kernel]") {
  for (double h : {0.37, 1.0, 12.5}) {
    // Simpson with 2000 intervals per piece: truncation ~1e-13, far below the tolerance.
    CHECK(kernel_integral<double>(h, 2000) == Approx(1.0).epsilon(1e-10));
    // Float kernel: each value carries ~6e-8 relative rounding.
    CHECK(kernel_integral<float>(h, 2000) == Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE("M4 kernel values: centre, continuity at q=1, zero beyond 2h", "[sph][kernel]") {
  const double h = 0.8;
  const double inv_pi_h3 = 1.0 / (cgs::kPi * h * h * h);
  CHECK(kernel_w(0.0, h) == Approx(inv_pi_h3).epsilon(1e-15));
  // Both branches give 0.25/(pi h^3) at q = 1.
  CHECK(kernel_w(h * (1 - 1e-12), h) == Approx(0.25 * inv_pi_h3).epsilon(1e-10));
  CHECK(kernel_w(h, h) == Approx(0.25 * inv_pi_h3).epsilon(1e-15));
  CHECK(kernel_w(2.0 * h, h) == 0.0);
  CHECK(kernel_w(3.0 * h, h) == 0.0);
  CHECK(kernel_dwdr(2.0 * h, h) == 0.0);
  CHECK(kernel_dwdr(0.0, h) == 0.0);
}

TEST_CASE("M4 dW/dr matches central finite differences of W", "[sph][kernel]") {
  const double h = 1.3;
  const double scale = 0.75 / (cgs::kPi * h * h * h * h);  // |dW/dr| at q = 1 (near its maximum)
  const double dr = 1e-5 * h;
  for (int k = 1; k < 200; ++k) {
    const double q = 0.01 * k + 0.0005;  // avoids q = 1 and q = 2 where W'' jumps
    const double r = q * h;
    const double fd = (kernel_w(r + dr, h) - kernel_w(r - dr, h)) / (2.0 * dr);
    // Truncation O(dr^2 W''') ~ 1e-10 and rounding ~ eps W / dr ~ 1e-11 relative to scale.
    CHECK(std::fabs(kernel_dwdr(r, h) - fd) < 1e-8 * scale);
    // (1/r) dW/dr is the same function divided by r.
    CHECK(kernel_dwdr_over_r(r, h) * r == Approx(kernel_dwdr(r, h)).epsilon(1e-13).margin(1e-300));
    // Float evaluation agrees with double to float precision (a few ulp of 6e-8).
    CHECK(double(kernel_dwdr<float>(float(r), float(h))) ==
          Approx(kernel_dwdr(r, h)).epsilon(1e-6).margin(1e-6 * scale));
  }
}
