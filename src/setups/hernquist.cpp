#include "setups/hernquist.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "setups/sphere_sampling.hpp"

namespace mpsph {

double hernquist_df_shape(double q) {
  if (q <= 0.0) return 0.0;
  if (q >= 1.0) q = 1.0 - 1e-15;
  const double q2 = q * q;
  // The bracket cancels to O(q^5) for loosely bound orbits: use its leading term 128/5 q^5 there
  // (next term O(q^7)), where the closed form would lose all digits.
  const double bracket = q < 1e-3
                             ? 25.6 * q2 * q2 * q
                             : 3.0 * std::asin(q) + q * std::sqrt(1.0 - q2) * (1.0 - 2.0 * q2) *
                                                        (8.0 * q2 * q2 - 8.0 * q2 - 3.0);
  const double c = 1.0 - q2;
  return bracket / (c * c * std::sqrt(c));  // (1 - q^2)^(-5/2)
}

namespace {

// Speed at dimensionless potential depth psi = (G M/a)^-1 |Phi(r)|, in units of sqrt(G M/a):
// rejection sampling of p(v) ~ v^2 f(psi - v^2/2) on v = u sqrt(2 psi), u in [0, 1).
double sample_speed(double psi, uint64_t id, uint64_t seed, uint32_t first_draw) {
  const auto density = [psi](double u) {
    return u * u * hernquist_df_shape(std::sqrt(psi * (1.0 - u * u)));
  };
  // p(u) is unimodal (v^2 grows, f(E) falls with v): bracket the peak on a grid, refine it by
  // golden-section search, and take a 2% margin over the maximum as the rejection bound.
  constexpr int kGrid = 32;
  int best = 1;
  double pbest = density(1.0 / kGrid);
  for (int k = 2; k < kGrid; ++k) {
    const double p = density(double(k) / kGrid);
    if (p > pbest) pbest = p, best = k;
  }
  // Golden section on [lo, hi] with one new evaluation per step; 40 steps shrink the bracket by
  // 0.618^40 ~ 4e-9.
  const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
  double lo = double(best - 1) / kGrid, hi = double(best + 1) / kGrid;
  double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
  double pa = density(a), pb = density(b);
  for (int it = 0; it < 40; ++it) {
    if (pa > pb) {
      hi = b, b = a, pb = pa;
      a = hi - phi * (hi - lo), pa = density(a);
    } else {
      lo = a, a = b, pa = pb;
      b = lo + phi * (hi - lo), pb = density(b);
    }
  }
  const double bound = 1.02 * std::fmax(pbest, std::fmax(pa, pb));
  for (uint32_t draw = first_draw;; draw += 2) {
    const double u = random_uniform(id, seed, kStreamSetup, draw);
    const double y = bound * random_uniform(id, seed, kStreamSetup, draw + 1);
    if (y < density(u)) return u * std::sqrt(2.0 * psi);
  }
}

}  // namespace

ParticleStore make_hernquist(const HernquistParams& p) {
  if (!(p.total_mass > 0.0) || !(p.scale_radius > 0.0) || !(p.G > 0.0) || p.r_max < 0.0) {
    throw Error("hernquist setup: total_mass, scale_radius and G must be positive, r_max >= 0");
  }
  if (p.type >= kNumTypes) throw Error("hernquist setup: particle type must be 0..5");
  const double a = p.scale_radius;
  const double x_max = p.r_max > 0.0 ? std::pow(p.r_max / (p.r_max + a), 2) : 1.0;
  const double v_unit = std::sqrt(p.G * p.total_mass / a);
  ParticleStore s;
  s.resize(p.n);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t i = 0; i < p.n; ++i) {
    const uint64_t id = i + 1;
    // Inverted M(<r)/M = r^2/(r+a)^2: sqrt(X) = r/(r+a); X in [0, x_max) keeps r finite.
    const double sx = std::sqrt(x_max * random_uniform(id, p.seed, kStreamSetup, 0));
    const double r = a * sx / (1.0 - sx);
    s.pos[i] = r * isotropic_direction(id, p.seed, 1);
    if (p.velocities) {
      const double v = v_unit * sample_speed(a / (r + a), id, p.seed, 5);
      s.vel[i] = v * isotropic_direction(id, p.seed, 3);
    }
    s.mass[i] = p.total_mass * x_max / double(p.n);
    s.id[i] = id;
    s.type[i] = p.type;
  }
  if (p.zero_com) remove_centre_of_mass(s);
  return s;
}

}  // namespace mpsph
