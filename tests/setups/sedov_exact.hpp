// Self-similar Sedov-Taylor point explosion in a uniform gas at rest (Sedov 1959; Taylor 1950),
// spherical, gamma < 7: the closed form of Kamm & Timmes (2007, LA-UR-07-2849, section 2, the
// "standard" case omega = 0, j = 3) with the similarity variable V as parameter, the reference of
// the Sedov validation test. Same equations as tools/sedov_exact.py. It lives in tests/ beside
// riemann_exact.hpp: only the tests compare with it; the setup (src/setups/sedov.cpp) does not
// need the solution.
//
// R_s(t) = xi0 (E t^2/rho0)^(1/5); behind the shock rho = rho2 g, v = v2 f, P = P2 h as functions
// of lambda = r/R_s, with the strong-shock states rho2 = rho0 (gamma+1)/(gamma-1),
// v2 = 2/(gamma+1) dR_s/dt, P2 = 2/(gamma+1) rho0 (dR_s/dt)^2; xi0 from the energy integral
//   E = K rho0 R_s^5/t^2,  K = 16 pi/25 * 2/(gamma^2-1) * int_0^1 (g f^2 + h) lambda^2 dlambda.
#pragma once

#include <cmath>
#include <vector>

namespace mpsph::test {

struct SedovShape {
  std::vector<double> lambda, f, g, h;  // centre (lambda -> 0) to the shock (lambda = 1)
};

class SedovExact {
 public:
  explicit SedovExact(double gamma, int n = 20000) : gamma_(gamma) {
    const double g = gamma, j = 3.0, j2w = j + 2.0;
    const double a = j2w * (g + 1) / 4, b = (g + 1) / (g - 1), c = j2w * g / 2;
    const double d = j2w * (g + 1) / (j2w * (g + 1) - 2 * (2 + j * (g - 1)));
    const double e = (2 + j * (g - 1)) / 2;
    const double a0 = 2 / j2w, a2 = -(g - 1) / (2 * (g - 1) + j);
    const double a1 = j2w * g / (2 + j * (g - 1)) * (2 * j * (2 - g) / (g * j2w * j2w) - a2);
    const double a3 = j / (2 * (g - 1) + j), a4 = j2w * j * a1 / (j * (2 - g));
    const double a5 = -2 * j / (j * (2 - g));
    // V from V0 = 2/(j2w gamma) (the centre) to V2 = 4/(j2w (gamma+1)) (the shock), spaced
    // geometrically in V - V0 from 1e-9 (lambda is a power of V - V0 near the centre, and still
    // increases in double there), after the centre itself: f = g = 0, h its limit (set below).
    const double v0 = 2 / (j2w * g), v2 = 4 / (j2w * (g + 1));
    s_.lambda.push_back(0.0);
    s_.f.push_back(0.0);
    s_.g.push_back(0.0);
    s_.h.push_back(0.0);
    for (int k = 0; k < n; ++k) {
      const double V = k == n - 1 ? v2 : v0 + (v2 - v0) * std::pow(10.0, -9.0 + 9.0 * k / (n - 1));
      const double x1 = a * V, x2 = b * (c * V - 1), x3 = d * (1 - e * V), x4 = b * (1 - c * V / g);
      const double lam = std::pow(x1, -a0) * std::pow(x2, -a2) * std::pow(x3, -a1);
      s_.lambda.push_back(lam);
      s_.f.push_back(x1 * lam);
      s_.g.push_back(std::pow(x2, a3) * std::pow(x3, a4) * std::pow(x4, a5));
      s_.h.push_back(std::pow(x1, a0 * j) * std::pow(x3, a4 - 2 * a1) * std::pow(x4, 1 + a5));
    }
    s_.h[0] = s_.h[1];
    // Trapezoidal in lambda from the first point off the centre; below it the integrand is
    // (g f^2 + h) lambda^2 with g f^2 + h constant to ~1e-6 (P is flat at the centre).
    const double l1 = s_.lambda[1];
    double integral = (s_.g[1] * s_.f[1] * s_.f[1] + s_.h[1]) * l1 * l1 * l1 / 3;
    for (std::size_t k = 2; k < s_.lambda.size(); ++k) {
      const double y0 = (s_.g[k - 1] * s_.f[k - 1] * s_.f[k - 1] + s_.h[k - 1]) * s_.lambda[k - 1] *
                        s_.lambda[k - 1];
      const double y1 = (s_.g[k] * s_.f[k] * s_.f[k] + s_.h[k]) * s_.lambda[k] * s_.lambda[k];
      integral += 0.5 * (y0 + y1) * (s_.lambda[k] - s_.lambda[k - 1]);
    }
    xi0_ = std::pow(16 * kPi / 25 * 2 / (g * g - 1) * integral, -0.2);
    // G1(lambda) = int_0^lambda g l dl, for the kernel-smoothed density.
    g1_.assign(s_.lambda.size(), 0.0);
    for (std::size_t k = 1; k < s_.lambda.size(); ++k)
      g1_[k] = g1_[k - 1] + 0.5 * (s_.g[k] * s_.lambda[k] + s_.g[k - 1] * s_.lambda[k - 1]) *
                                (s_.lambda[k] - s_.lambda[k - 1]);
  }

  double xi0() const { return xi0_; }
  const SedovShape& shape() const { return s_; }
  double shock_radius(double energy, double rho0, double t) const {
    return xi0_ * std::pow(energy * t * t / rho0, 0.2);
  }
  // Density at radius r and time t (rho0 outside the shock).
  double density(double r, double energy, double rho0, double t) const {
    const double x = r / shock_radius(energy, rho0, t);
    if (x >= 1) return rho0;
    return rho0 * (gamma_ + 1) / (gamma_ - 1) * interpolate(s_.g, x);
  }

  // The density smoothed with the M4 kernel of smoothing length h (PHYSICS.md section 1), i.e.
  // what an SPH particle at radius r with that h measures in the exact flow:
  //   rho_h(r) = int W(|s|, h) rho(|r + s|) d^3s
  //            = (2 pi / r) int_0^2h s W(s, h) [F(r + s) - F(|r - s|)] ds,
  // F(x) = int_0^x rho(d) d dd (the angular integral done exactly), F from the cumulative G1 of
  // the profile inside the shock and rho0 (x^2 - R^2)/2 beyond it. F is continuous, so the
  // midpoint rule in s (400 points) converges fast; r > 0.
  double smoothed_density(double r, double h, double energy, double rho0, double t) const {
    const double rs = shock_radius(energy, rho0, t);
    const double rho2 = rho0 * (gamma_ + 1) / (gamma_ - 1);
    auto F = [&](double x) {
      if (x >= rs) return rho2 * rs * rs * g1_.back() + 0.5 * rho0 * (x * x - rs * rs);
      return rho2 * rs * rs * interpolate(g1_, x / rs);
    };
    const int n = 400;
    const double ds = 2 * h / n;
    double sum = 0;
    for (int k = 0; k < n; ++k) {
      const double sv = (k + 0.5) * ds, q = sv / h;
      const double w =
          q < 1 ? 1 - 1.5 * q * q + 0.75 * q * q * q : 0.25 * (2 - q) * (2 - q) * (2 - q);
      sum += sv * w / (kPi * h * h * h) * (F(r + sv) - F(std::fabs(r - sv)));
    }
    return 2 * kPi / r * sum * ds;
  }

 private:
  static constexpr double kPi = 3.14159265358979323846;

  double interpolate(const std::vector<double>& y, double x) const {
    const std::vector<double>& l = s_.lambda;
    if (x <= l.front()) return y.front();
    if (x >= l.back()) return y.back();
    // lambda increases with V: bisection.
    std::size_t lo = 0, hi = l.size() - 1;
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      (l[mid] < x ? lo : hi) = mid;
    }
    const std::size_t k = hi;
    const double w = (x - l[k - 1]) / (l[k] - l[k - 1]);
    return (1 - w) * y[k - 1] + w * y[k];
  }

  double gamma_;
  double xi0_ = 0;
  SedovShape s_;
  std::vector<double> g1_;
};

}  // namespace mpsph::test
