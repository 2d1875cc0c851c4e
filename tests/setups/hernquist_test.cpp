// Hernquist sphere initial conditions (setups/hernquist.hpp) against the analytic model.
#include "setups/hernquist.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "gravity/direct_gravity.hpp"

using namespace mpsph;

TEST_CASE("hernquist: distribution function shape", "[setups][hernquist]") {
  // Loosely bound orbits: f ~ (128/5) q^5 (the series branch joins the closed form smoothly);
  // deeply bound: f diverges like (1 - q^2)^(-5/2) times 3 pi/2.
  CHECK(hernquist_df_shape(0.999e-3) / std::pow(0.999e-3, 5) ==
        Approx(hernquist_df_shape(1.001e-3) / std::pow(1.001e-3, 5)).epsilon(1e-3));
  CHECK(hernquist_df_shape(1e-3) / std::pow(1e-3, 5) == Approx(25.6).epsilon(1e-3));
  const double q = 0.999999;
  CHECK(hernquist_df_shape(q) * std::pow(1 - q * q, 2.5) == Approx(1.5 * 3.14159265).epsilon(1e-3));
  // Monotonic in binding energy.
  double prev = 0.0;
  for (double x = 0.05; x < 1.0; x += 0.05) {
    CHECK(hernquist_df_shape(x) > prev);
    prev = hernquist_df_shape(x);
  }
}

TEST_CASE("hernquist: mass profile, energies and velocity dispersion", "[setups][hernquist]") {
  // G = M = a = 1: W = -G M^2/(6a), K = G M^2/(12a) (Hernquist 1990 eqs. 14-15 with the virial
  // theorem), M(<a)/M = 1/4.
  HernquistParams hp;
  hp.n = 20000;
  hp.seed = 5;
  const ParticleStore s = make_hernquist(hp);
  const std::size_t n = s.size();
  const std::vector<float> eps(n, 0.0f);
  std::vector<Vec3d> acc(n);
  std::vector<double> pot(n);
  direct_gravity({s.pos.data(), s.mass.data(), eps.data(), n}, SofteningKernel::Plummer, 1.0, 0, n,
                 acc.data(), pot.data());
  double w = 0.0, k = 0.0, k2 = 0.0;
  std::size_t inside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    w += 0.5 * s.mass[i] * pot[i];
    const double ki = 0.5 * s.mass[i] * norm2(s.vel[i]);
    k += ki;
    k2 += ki * ki;
    inside += norm(s.pos[i]) < 1.0 ? 1 : 0;
  }
  // Noise: W as a U-statistic, sigma_W/|W| = sqrt(4 Var(psi)/N)/E[psi] with psi = 1/(r+a):
  // E[psi] = 1/3, E[psi^2] = 1/6, so sqrt(2/N); K from the sample; binomial for M(<a).
  const double sigma_w = std::sqrt(2.0 / double(n)) / 6.0;
  const double sigma_k = std::sqrt(k2 - k * k / double(n));
  const double sigma_f = std::sqrt(0.25 * 0.75 / double(n));
  std::printf(
      "hernquist: W = %.4f (exact %.4f, sigma %.4f), K = %.4f (exact %.4f, sigma %.4f), "
      "M(<a)/M = %.4f\n",
      w, -1.0 / 6.0, sigma_w, k, 1.0 / 12.0, sigma_k, double(inside) / double(n));
  CHECK(std::fabs(w + 1.0 / 6.0) < 4.0 * sigma_w);
  CHECK(std::fabs(k - 1.0 / 12.0) < 4.0 * sigma_k);
  CHECK(std::fabs(double(inside) / double(n) - 0.25) < 4.0 * sigma_f);

  // Isotropic Jeans equation: rho sigma_r^2 (r) = int_r^inf rho G M(<r')/r'^2 dr', integrated
  // inwards once on a log grid (trapezoid, 400 points per decade: converged to 1e-5) from 1e6 a,
  // and interpolated linearly in log r.
  const auto rho = [](double r) { return 1.0 / (2.0 * 3.14159265358979 * r * std::pow(r + 1, 3)); };
  const auto integrand = [&rho](double x) { return rho(x) / ((x + 1) * (x + 1)) * x; };  // dln x
  const int per_decade = 400, decades = 8;
  const double l_min = std::log(0.01), dl = std::log(10.0) / per_decade;
  std::vector<double> sigma2(per_decade * decades + 1);
  double acc_int = 0.0;
  for (int j = int(sigma2.size()) - 1; j >= 0; --j) {
    const double x = std::exp(l_min + j * dl);
    if (j + 1 < int(sigma2.size()))
      acc_int += 0.5 * dl * (integrand(x) + integrand(x * std::exp(dl)));
    sigma2[j] = acc_int / rho(x);
  }
  const auto jeans = [&](double r) {
    const double t = (std::log(r) - l_min) / dl;
    const int j = int(t);
    return sigma2[j] + (t - j) * (sigma2[j + 1] - sigma2[j]);
  };
  const double edges[] = {0.1, 0.3, 0.6, 1.0, 2.0, 4.0};
  for (int b = 0; b + 1 < 6; ++b) {
    double sum = 0.0, sum2 = 0.0, model = 0.0;
    std::size_t cnt = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = norm(s.pos[i]);
      if (r < edges[b] || r >= edges[b + 1]) continue;
      const double vr2 = std::pow(dot(s.vel[i], s.pos[i]) / r, 2);
      sum += vr2;
      sum2 += vr2 * vr2;
      model += jeans(r);
      ++cnt;
    }
    const double mean = sum / cnt, sigma = std::sqrt((sum2 / cnt - mean * mean) / cnt);
    model /= cnt;
    INFO("shell " << edges[b] << ".." << edges[b + 1] << ": <v_r^2> " << mean << " +- " << sigma
                  << ", Jeans " << model);
    CHECK(std::fabs(mean - model) < 4.0 * sigma);
  }
}

TEST_CASE("hernquist: truncation and particles at rest", "[setups][hernquist]") {
  HernquistParams hp;
  hp.n = 2000;
  hp.r_max = 10.0;
  hp.velocities = false;
  hp.zero_com = false;
  const ParticleStore s = make_hernquist(hp);
  const double m_in = std::pow(10.0 / 11.0, 2);  // M(<r_max)/M
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(norm(s.pos[i]) < 10.0);
    CHECK(s.mass[i] == Approx(m_in / 2000));
    CHECK(norm(s.vel[i]) == 0.0);
    CHECK(s.id[i] == i + 1);
  }
}
