// An independent reference for the cooling tests: the same physics as src/cooling (SD93 tables
// above 1e4 K, Koyama & Inutsuka 2002 below, mu(T), temperature floor) written again in cgs with
// its own table parser, interpolation, T(u) inversion (bisection instead of the closed form) and
// an explicit RK4 integration in ln u with tiny steps, so that a mistake in the module does not
// cancel in the comparison.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/constants.hpp"

namespace mpsph::test {

inline std::string sd93_table_path(const std::string& file) {
  return std::string(MPSPH_SOURCE_DIR) + "/data/cooling_tables/SD93_CIE/" + file;
}

// The numeric rows of one SD93 .cie file (lines that hold twelve numbers).
struct RefTable {
  std::vector<double> log_T, log_lambda_n, ne, nt;
};

inline RefTable read_ref_table(const std::string& path) {
  RefTable t;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    double v[12];
    int k = 0;
    while (k < 12 && ss >> v[k]) ++k;
    if (k != 12) continue;
    t.log_T.push_back(v[0]);
    t.ne.push_back(v[1]);
    t.nt.push_back(v[3]);
    t.log_lambda_n.push_back(v[5]);
  }
  return t;
}

struct RefCooling {
  RefTable table;  // one metallicity (a node of the module's table)
  double n_H = 0.1;
  double x_h = 0.7;
  double gamma = 5.0 / 3.0;
  double T_floor = 10.0;

  double rho() const { return n_H * cgs::m_H / x_h; }

  static double mu(double T) {
    if (T <= 8000.0) return 1.22;
    if (T >= 1.5e4) return 0.59;
    return 1.22 + (0.59 - 1.22) * (T - 8000.0) / 7000.0;
  }
  double u_of_T(double T) const { return cgs::k_B * T / ((gamma - 1.0) * mu(T) * cgs::m_H); }
  // u(T) increases with T: bisection in log T.
  double T_of_u(double u) const {
    double lo = -3.0, hi = 10.0;
    for (int i = 0; i < 60; ++i) {  // 13 dex / 2^60: exact in double
      const double mid = 0.5 * (lo + hi);
      (u_of_T(std::pow(10.0, mid)) < u ? lo : hi) = mid;
    }
    return std::pow(10.0, 0.5 * (lo + hi));
  }
  // Koyama & Inutsuka (2002) Lambda / n_H^2 [erg cm^3 s^-1], as written in PHYSICS.md.
  static double lambda_ki02(double T) {
    return 2e-26 *
           (1e7 * std::exp(-1.184e5 / (T + 1000.0)) + 1.4e-2 * std::sqrt(T) * std::exp(-92.0 / T));
  }
  // Lambda / n_H^2 [erg cm^3 s^-1].
  double lambda(double T) const {
    if (T < 1e4) return lambda_ki02(T);
    const std::vector<double>& x = table.log_T;
    const double lt = std::min(std::log10(T), x.back());
    const std::size_t j =
        std::min<std::size_t>(std::upper_bound(x.begin(), x.end(), lt) - x.begin(), x.size() - 1);
    const std::size_t i = j - 1;
    const double w = (lt - x[i]) / (x[j] - x[i]);
    auto at = [&](std::size_t k) {
      return table.log_lambda_n[k] + std::log10(table.ne[k]) + std::log10(table.nt[k]);
    };
    return std::pow(10.0, at(i) + w * (at(j) - at(i)));
  }
  // du/dt [erg g^-1 s^-1]; zero at the floor.
  double dudt(double u) const {
    const double u_floor = u_of_T(T_floor);
    if (u <= u_floor) return 0.0;
    return -n_H * n_H * lambda(T_of_u(u)) / rho();
  }
};

// T(t) of the reference, t in s.
struct RefTrajectory {
  std::vector<double> t, T;

  // T at time t (linear in ln T between the closely spaced samples).
  double T_at(double time) const {
    if (time >= t.back()) return T.back();
    const std::size_t j = std::upper_bound(t.begin(), t.end(), time) - t.begin();
    const double w = (time - t[j - 1]) / (t[j] - t[j - 1]);
    return std::exp(std::log(T[j - 1]) + w * (std::log(T[j]) - std::log(T[j - 1])));
  }
  // First time at which T falls to `temp` (T decreases monotonically without heating).
  double time_of(double temp) const {
    const std::size_t j =
        std::lower_bound(T.begin(), T.end(), temp, [](double a, double b) { return a > b; }) -
        T.begin();
    if (j == 0) return t[0];
    if (j == T.size()) return HUGE_VAL;
    const double w = std::log(temp / T[j - 1]) / std::log(T[j] / T[j - 1]);
    return t[j - 1] + w * (t[j] - t[j - 1]);
  }
};

// RK4 in ln u, each step changing ln u by at most about `dlnu` (judged from all four stages), from
// T0 until t_end or the floor.
inline RefTrajectory integrate_reference(const RefCooling& c, double T0, double t_end,
                                         double dlnu = 1e-3) {
  RefTrajectory r;
  const double u_floor = c.u_of_T(c.T_floor);
  auto f = [&](double y) {  // d ln u / dt
    const double u = std::max(std::exp(y), u_floor);
    return c.dudt(u) / u;
  };
  double y = std::log(c.u_of_T(T0)), t = 0.0;
  r.t.push_back(0.0);
  r.T.push_back(T0);
  while (t < t_end) {
    const double k1 = f(y);
    if (k1 == 0.0) break;  // at the floor
    double h = std::min(dlnu / std::fabs(k1), t_end - t), k2, k3, k4;
    for (;;) {  // shorter steps where the rate jumps within one (1e4 K, table nodes)
      k2 = f(y + 0.5 * h * k1), k3 = f(y + 0.5 * h * k2), k4 = f(y + h * k3);
      const double k_max = std::max({std::fabs(k2), std::fabs(k3), std::fabs(k4)});
      if (h * k_max <= 2.0 * dlnu) break;
      h *= 0.5;
    }
    y = std::max(y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), std::log(u_floor));
    t += h;
    r.t.push_back(t);
    r.T.push_back(c.T_of_u(std::exp(y)));
  }
  if (t < t_end) {
    r.t.push_back(t_end);
    r.T.push_back(r.T.back());
  }
  return r;
}

}  // namespace mpsph::test
