#include "setups/plummer.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "setups/sphere_sampling.hpp"

namespace mpsph {

ParticleStore make_plummer(std::size_t n, uint64_t seed, double total_mass, double scale_radius,
                           bool zero_com, uint8_t type, double G) {
  if (!(total_mass > 0.0) || !(scale_radius > 0.0) || !(G > 0.0)) {
    throw Error("plummer setup: total_mass, scale_radius and G must be positive");
  }
  if (type >= kNumTypes) throw Error("plummer setup: particle type must be 0..5");
  ParticleStore s;
  s.resize(n);
  const double m = total_mass / double(n);
  const double a = scale_radius;
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t id = i + 1;
    // Radius from the inverted cumulative mass M(<r)/M = r^3 / (r^2 + a^2)^(3/2)
    // (AHW74 appendix); X in [0, 1) so r is finite.
    const double X = random_uniform(id, seed, kStreamSetup, 0);
    const double r = X > 0.0 ? a / std::sqrt(std::pow(X, -2.0 / 3.0) - 1.0) : 0.0;
    s.pos[i] = r * isotropic_direction(id, seed, 1);
    // Speed v = q v_esc with v_esc = sqrt(2 G M) (r^2 + a^2)^(-1/4) and q drawn from
    // g(q) = q^2 (1 - q^2)^(7/2) by rejection under the bound 0.1 > max g = 0.0921 (AHW74
    // appendix).
    uint32_t draw = 3;
    double q = 0.0;
    for (;;) {
      const double x = random_uniform(id, seed, kStreamSetup, draw++);
      const double y = 0.1 * random_uniform(id, seed, kStreamSetup, draw++);
      if (y < x * x * std::pow(1.0 - x * x, 3.5)) {
        q = x;
        break;
      }
    }
    const double v = q * std::sqrt(2.0 * G * total_mass) * std::pow(r * r + a * a, -0.25);
    s.vel[i] = v * isotropic_direction(id, seed, draw);
    s.mass[i] = m;
    s.id[i] = id;
    s.type[i] = type;
  }
  if (zero_com) remove_centre_of_mass(s);
  return s;
}

}  // namespace mpsph
