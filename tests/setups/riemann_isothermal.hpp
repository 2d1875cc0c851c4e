// Exact solution of the 1D Riemann problem for an isothermal gas, P = c^2 rho with c constant
// (the gamma -> 1 limit of Toro 2009, chapter 4; e.g. LeVeque 2002, "Finite Volume Methods for
// Hyperbolic Problems", section 14.9, Balsara 1994 for the isothermal MHD analogue).
//
// Two waves, no contact discontinuity (rho is continuous where p is). The star density rho* solves
//   f_L(rho*) + f_R(rho*) + u_R - u_L = 0,   u* = (u_L + u_R)/2 + (f_R - f_L)/2,
// with, for side K,
//   shock (rho* > rho_K):       f_K = c (rho* - rho_K) / sqrt(rho* rho_K)
//       (Rankine-Hugoniot with P = c^2 rho: mass flux m = c sqrt(rho* rho_K));
//       speed S_L = u_L - c sqrt(rho*/rho_L), S_R = u_R + c sqrt(rho*/rho_R);
//   rarefaction (rho* <= rho_K): f_K = c ln(rho*/rho_K)
//       (Riemann invariant u +- c ln rho); head u_L - c / u_R + c, tail u* - c / u* + c, inside
//       the fan u = s + c, rho = rho_L exp((u_L - u)/c) (left) and u = s - c,
//       rho = rho_R exp((u - u_R)/c) (right).
// Each f_K increases with rho*, so the root is found by bisection in ln rho*.
#pragma once

#include <cmath>

namespace mpsph::test {

struct IsoState {
  double rho, u;
};

class ExactIsothermalRiemann {
 public:
  ExactIsothermalRiemann(IsoState left, IsoState right, double c) : L_(left), R_(right), c_(c) {
    // f_L + f_R + du is increasing in ln rho*; the bracket spans e^+-60 around the states.
    double lo = std::log(std::fmin(L_.rho, R_.rho)) - 60.0;
    double hi = std::log(std::fmax(L_.rho, R_.rho)) + 60.0;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (residual(std::exp(mid)) > 0.0 ? hi : lo) = mid;
    }
    rho_star_ = std::exp(0.5 * (lo + hi));
    u_star_ = 0.5 * (L_.u + R_.u) + 0.5 * (f(rho_star_, R_) - f(rho_star_, L_));
  }

  double rho_star() const { return rho_star_; }
  double u_star() const { return u_star_; }
  // Shock speeds (valid when that side is a shock).
  double left_shock_speed() const { return L_.u - c_ * std::sqrt(rho_star_ / L_.rho); }
  double right_shock_speed() const { return R_.u + c_ * std::sqrt(rho_star_ / R_.rho); }

  // Solution at similarity coordinate s = (x - x0)/t.
  IsoState sample(double s) const {
    const double c = c_;
    if (s <= u_star_) {
      if (rho_star_ > L_.rho) return s < left_shock_speed() ? L_ : IsoState{rho_star_, u_star_};
      if (s <= L_.u - c) return L_;
      if (s >= u_star_ - c) return {rho_star_, u_star_};
      const double u = s + c;
      return {L_.rho * std::exp((L_.u - u) / c), u};
    }
    if (rho_star_ > R_.rho) return s > right_shock_speed() ? R_ : IsoState{rho_star_, u_star_};
    if (s >= R_.u + c) return R_;
    if (s <= u_star_ + c) return {rho_star_, u_star_};
    const double u = s - c;
    return {R_.rho * std::exp((u - R_.u) / c), u};
  }

 private:
  double f(double rho, const IsoState& k) const {
    return rho > k.rho ? c_ * (rho - k.rho) / std::sqrt(rho * k.rho) : c_ * std::log(rho / k.rho);
  }
  double residual(double rho) const { return f(rho, L_) + f(rho, R_) + R_.u - L_.u; }

  IsoState L_, R_;
  double c_;
  double rho_star_ = 0, u_star_ = 0;
};

}  // namespace mpsph::test
