// Plummer sphere initial conditions (setups/plummer.hpp) against the analytic model.
#include "setups/plummer.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "gravity/direct_gravity.hpp"

using namespace mpsph;

namespace {

// Potential energy W = 1/2 sum m_i phi_i, unsoftened direct sum.
double potential_energy(const ParticleStore& s, double G) {
  const std::vector<float> eps(s.size(), 0.0f);
  std::vector<Vec3d> acc(s.size());
  std::vector<double> pot(s.size());
  direct_gravity({s.pos.data(), s.mass.data(), eps.data(), s.size()}, SofteningKernel::Plummer, G,
                 0, s.size(), acc.data(), pot.data());
  double w = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) w += 0.5 * s.mass[i] * pot[i];
  return w;
}

double kinetic_energy(const ParticleStore& s) {
  double k = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) k += 0.5 * s.mass[i] * norm2(s.vel[i]);
  return k;
}

}  // namespace

TEST_CASE("plummer: ids, types, masses, centre of mass, reproducibility", "[setups][plummer]") {
  const ParticleStore s = make_plummer(1000, 7, 3.0, 0.5, true, kOldStar);
  REQUIRE(s.size() == 1000);
  Vec3d mx{0, 0, 0}, mv{0, 0, 0};
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.id[i] == i + 1);
    CHECK(s.type[i] == kOldStar);
    CHECK(s.mass[i] == Approx(3.0 / 1000));
    mx += s.mass[i] * s.pos[i];
    mv += s.mass[i] * s.vel[i];
  }
  CHECK(norm(mx) < 1e-12);
  CHECK(norm(mv) < 1e-12);
  // Counter-based draws: the same sample with one thread, a different one with another seed.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ParticleStore serial = make_plummer(1000, 7, 3.0, 0.5, true, kOldStar);
  omp_set_num_threads(threads);
  const ParticleStore other = make_plummer(1000, 8, 3.0, 0.5, true, kOldStar);
  bool same = true, differs = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    same = same && s.pos[i].x == serial.pos[i].x && s.vel[i].z == serial.vel[i].z;
    differs = differs || s.pos[i].x != other.pos[i].x;
  }
  CHECK(same);
  CHECK(differs);
}

TEST_CASE("plummer: mass profile, potential energy and virial ratio", "[setups][plummer]") {
  // N-body units: M = G = 1, a = 3 pi/16, so W = -3 pi G M^2/(32 a) = -1/2 and K = 1/4.
  const double a = kPlummerVirialScaleRadius;
  const double w_exact = -3.0 * cgs::kPi / (32.0 * a);
  const std::size_t n = 10000;
  const int n_seeds = 4;
  double w_sum = 0.0, k_sum = 0.0, ratio_sum = 0.0, frac_sum = 0.0, var_k = 0.0;
  for (int seed = 1; seed <= n_seeds; ++seed) {
    const ParticleStore s = make_plummer(n, uint64_t(seed));
    const double w = potential_energy(s, 1.0), k = kinetic_energy(s);
    w_sum += w;
    k_sum += k;
    ratio_sum += 2.0 * k / std::fabs(w);
    std::size_t inside = 0;
    double sum_v4 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      inside += norm(s.pos[i]) < a ? 1 : 0;
      sum_v4 += std::pow(0.5 * s.mass[i] * norm2(s.vel[i]), 2);
    }
    frac_sum += double(inside) / double(n);
    // Sampling variance of K, a sum of n independent terms: n Var(k_i) = sum k_i^2 - K^2/n.
    var_k += sum_v4 - k * k / double(n);
  }
  const double w_mean = w_sum / n_seeds, k_mean = k_sum / n_seeds;
  const double ratio_mean = ratio_sum / n_seeds, frac_mean = frac_sum / n_seeds;
  const double n_total = double(n) * n_seeds;

  // Noise. W is a U-statistic whose variance is 4/N Var(psi)/E[psi]^2 W^2 with psi(r) =
  // 1/sqrt(r^2 + a^2): E[psi] = 3 pi/(16 a), E[psi^2] = 2/(5 a^2), so sigma_W/|W| = 0.78/sqrt(N);
  // for the mean of the seeds, N is the total. sigma_K from the sample itself. The discrete W is
  // biased by a factor (1 - 1/N), 1e-4, far inside the noise. Bounds at 4 sigma.
  const double psi_var_rel =
      (0.4 - std::pow(3.0 * cgs::kPi / 16.0, 2)) / std::pow(3.0 * cgs::kPi / 16.0, 2);
  const double sigma_w = std::sqrt(4.0 * psi_var_rel / n_total) * std::fabs(w_exact);
  const double sigma_k = std::sqrt(var_k) / n_seeds;
  const double sigma_ratio =
      std::sqrt(std::pow(sigma_k / k_mean, 2) + std::pow(sigma_w / std::fabs(w_mean), 2));
  // Mass fraction inside a: M(<a)/M = 2^(-3/2), binomial noise.
  const double f_exact = std::pow(2.0, -1.5);
  const double sigma_f = std::sqrt(f_exact * (1 - f_exact) / n_total);
  std::printf(
      "plummer: W = %.5f (exact %.5f, sigma %.5f), K = %.5f (exact %.5f, sigma %.5f), "
      "2K/|W| = %.4f (sigma %.4f), M(<a)/M = %.4f (exact %.4f)\n",
      w_mean, w_exact, sigma_w, k_mean, -0.5 * w_exact, sigma_k, ratio_mean, sigma_ratio, frac_mean,
      f_exact);
  CHECK(std::fabs(w_mean - w_exact) < 4.0 * sigma_w);
  CHECK(std::fabs(k_mean + 0.5 * w_exact) < 4.0 * sigma_k);
  CHECK(std::fabs(ratio_mean - 1.0) < 4.0 * sigma_ratio);
  CHECK(std::fabs(frac_mean - f_exact) < 4.0 * sigma_f);
}

TEST_CASE("plummer: mass, radius and G scale the model", "[setups][plummer]") {
  // Positions scale with a, velocities with sqrt(G M/a): draws are identical.
  const ParticleStore u = make_plummer(200, 3, 1.0, 1.0, false);
  const ParticleStore s = make_plummer(200, 3, 8.0, 2.0, false, kDarkMatter, 4.0);
  for (std::size_t i = 0; i < 200; ++i) {
    CHECK(s.pos[i].y == Approx(2.0 * u.pos[i].y).margin(1e-14));
    CHECK(s.vel[i].x == Approx(std::sqrt(4.0 * 8.0 / 2.0) * u.vel[i].x).margin(1e-14));
  }
}
