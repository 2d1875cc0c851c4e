// Exact solution of the 1D Riemann problem for an ideal gas (Toro 2009, "Riemann Solvers and
// Numerical Methods for Fluid Dynamics", chapter 4), the reference of the Sod validation test.
#pragma once

#include <algorithm>
#include <cmath>

namespace mpsph::test {

struct GasState {
  double rho, u, p;
};

class ExactRiemann {
 public:
  ExactRiemann(GasState left, GasState right, double gamma) : L_(left), R_(right), g_(gamma) {
    // Newton iteration for the star pressure, Toro eqs. 4.5-4.6 with 4.20-4.21.
    double p = std::max(1e-10, 0.5 * (L_.p + R_.p));
    for (int it = 0; it < 100; ++it) {
      double fl, dl, fr, dr;
      f(p, L_, fl, dl);
      f(p, R_, fr, dr);
      const double dp = (fl + fr + R_.u - L_.u) / (dl + dr);
      p = std::max(1e-12, p - dp);
      if (std::fabs(dp) < 1e-14 * p) break;
    }
    double fl, dl, fr, dr;
    f(p, L_, fl, dl);
    f(p, R_, fr, dr);
    p_star_ = p;
    u_star_ = 0.5 * (L_.u + R_.u) + 0.5 * (fr - fl);
  }

  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }

  // Solution at similarity coordinate s = (x - x0)/t (Toro section 4.5).
  GasState sample(double s) const {
    const double g = g_;
    if (s <= u_star_) {
      const GasState& k = L_;
      const double c = std::sqrt(g * k.p / k.rho);
      if (p_star_ > k.p) {
        const double S = k.u - c * std::sqrt((g + 1) / (2 * g) * p_star_ / k.p + (g - 1) / (2 * g));
        if (s < S) return k;
        return {shocked_density(k), u_star_, p_star_};
      }
      const double cs = c * std::pow(p_star_ / k.p, (g - 1) / (2 * g));
      if (s > u_star_ - cs) return {k.rho * std::pow(p_star_ / k.p, 1 / g), u_star_, p_star_};
      if (s <= k.u - c) return k;
      const double u = 2 / (g + 1) * (c + (g - 1) / 2 * k.u + s);
      const double cc = 2 / (g + 1) * (c + (g - 1) / 2 * (k.u - s));
      return {k.rho * std::pow(cc / c, 2 / (g - 1)), u, k.p * std::pow(cc / c, 2 * g / (g - 1))};
    }
    const GasState& k = R_;
    const double c = std::sqrt(g * k.p / k.rho);
    if (p_star_ > k.p) {
      const double S = k.u + c * std::sqrt((g + 1) / (2 * g) * p_star_ / k.p + (g - 1) / (2 * g));
      if (s > S) return k;
      return {shocked_density(k), u_star_, p_star_};
    }
    const double cs = c * std::pow(p_star_ / k.p, (g - 1) / (2 * g));
    if (s < u_star_ + cs) return {k.rho * std::pow(p_star_ / k.p, 1 / g), u_star_, p_star_};
    if (s >= k.u + c) return k;
    const double u = 2 / (g + 1) * (-c + (g - 1) / 2 * k.u + s);
    const double cc = 2 / (g + 1) * (c - (g - 1) / 2 * (k.u - s));
    return {k.rho * std::pow(cc / c, 2 / (g - 1)), u, k.p * std::pow(cc / c, 2 * g / (g - 1))};
  }

 private:
  void f(double p, const GasState& k, double& val, double& deriv) const {
    const double g = g_;
    if (p > k.p) {  // shock, Toro eq. 4.21
      const double A = 2 / ((g + 1) * k.rho), B = (g - 1) / (g + 1) * k.p;
      val = (p - k.p) * std::sqrt(A / (p + B));
      deriv = std::sqrt(A / (B + p)) * (1 - 0.5 * (p - k.p) / (B + p));
    } else {  // rarefaction, Toro eq. 4.20
      const double c = std::sqrt(g * k.p / k.rho);
      val = 2 * c / (g - 1) * (std::pow(p / k.p, (g - 1) / (2 * g)) - 1);
      deriv = std::pow(p / k.p, -(g + 1) / (2 * g)) / (k.rho * c);
    }
  }
  double shocked_density(const GasState& k) const {
    const double r = p_star_ / k.p, q = (g_ - 1) / (g_ + 1);
    return k.rho * (r + q) / (q * r + 1);
  }

  GasState L_, R_;
  double g_;
  double p_star_ = 0, u_star_ = 0;
};

}  // namespace mpsph::test
