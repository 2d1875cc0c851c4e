// Direct summation (direct_gravity.hpp): analytic two-body values, momentum conservation and
// agreement of the float-pair version with the all-double reference.
#include "gravity/direct_gravity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "gravity/gravity_kern.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;

TEST_CASE("direct gravity: two bodies", "[gravity][direct]") {
  // Plummer-softened pair with pair softening (eps_1^2 + eps_2^2)/2 and G = 2.
  const std::vector<Vec3d> pos{{0, 0, 0}, {0, 3, 4}};
  const std::vector<double> mass{1.0, 3.0};
  const std::vector<float> eps{0.5f, 1.5f};
  const double G = 2.0, s2 = 25.0 + 0.5 * (0.25 + 2.25), s = std::sqrt(s2);
  std::vector<Vec3d> acc(2);
  std::vector<double> pot(2);
  direct_gravity({pos.data(), mass.data(), eps.data(), 2}, SofteningKernel::Plummer, G, 0, 2,
                 acc.data(), pot.data());
  CHECK(acc[0].y == Approx(G * 3.0 * 3.0 / (s2 * s)).epsilon(1e-6));
  CHECK(acc[0].z == Approx(G * 3.0 * 4.0 / (s2 * s)).epsilon(1e-6));
  CHECK(acc[1].z == Approx(-G * 1.0 * 4.0 / (s2 * s)).epsilon(1e-6));
  CHECK(pot[0] == Approx(-G * 3.0 / s).epsilon(1e-6));
  CHECK(pot[1] == Approx(-G * 1.0 / s).epsilon(1e-6));
}

TEST_CASE("direct gravity: momentum conservation and the double reference", "[gravity][direct]") {
  // 3000 particles of a Plummer sphere with unequal masses and two softenings (mixed pairs).
  const std::size_t n = 3000;
  ParticleStore s = make_plummer(n, 11);
  std::vector<float> eps(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.mass[i] *= 0.5 + random_uniform(i, 3, 9, 0);
    eps[i] = i % 2 ? 0.005f : 0.02f;
  }
  for (SofteningKernel k : {SofteningKernel::Plummer, SofteningKernel::Spline}) {
    const GravitySources src{s.pos.data(), s.mass.data(), eps.data(), n};
    std::vector<Vec3d> acc(n), acc_ref(n);
    std::vector<double> pot(n), pot_ref(n);
    direct_gravity(src, k, 1.0, 0, n, acc.data(), pot.data());
    direct_gravity_double(src, k, 1.0, 0, n, acc_ref.data(), pot_ref.data());

    // Exactly antisymmetric float pair terms summed in double: sum m a is double round-off,
    // ~1e-16 of sum m|a| per term, so 1e-13 leaves a wide margin yet is far below what float
    // accumulation gives (~1e-8).
    Vec3d p{0, 0, 0};
    double scale = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      p += s.mass[i] * acc[i];
      scale += s.mass[i] * norm(acc[i]);
    }
    CHECK(norm(p) / scale < 1e-13);

    // Float pair terms: each carries a relative error of a few 1e-8, so the error of a_i is
    // bounded by ~1e-7 of sum_j |a_ij|, the sum of the magnitudes of its terms (which exceeds
    // |a_i| where forces cancel, as near the centre). Checked: that bound at 1e-6 for every
    // particle, 1e-6 of |a_i| itself for 99% of them, and 1e-6 for the potential (terms of one
    // sign).
    std::vector<double> rel(n);
    double max_bound = 0.0, max_pot = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      double terms = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        const Vec3d dx = s.pos[i] - s.pos[j];
        const double e2 = pair_eps2(double(eps[i]), double(eps[j]));
        terms += s.mass[j] * softened_factors(norm2(dx), e2, k).g1 * norm(dx);
      }
      rel[i] = norm(acc[i] - acc_ref[i]) / norm(acc_ref[i]);
      max_bound = std::max(max_bound, norm(acc[i] - acc_ref[i]) / terms);
      max_pot = std::max(max_pot, std::fabs(pot[i] / pot_ref[i] - 1.0));
    }
    std::sort(rel.begin(), rel.end());
    std::printf(
        "direct float vs double (kernel %d): |sum m a|/sum m|a| %.1e, p99 |da|/|a| %.1e, "
        "max |da|/sum|a_ij| %.1e, max |dphi/phi| %.1e\n",
        int(k), norm(p) / scale, rel[n * 99 / 100], max_bound, max_pot);
    CHECK(rel[n * 99 / 100] < 1e-6);
    CHECK(max_bound < 1e-6);
    CHECK(max_pot < 1e-6);
  }
}
