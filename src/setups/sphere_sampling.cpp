#include "setups/sphere_sampling.hpp"

#include <cmath>

#include "core/constants.hpp"
#include "core/rng.hpp"

namespace mpsph {

Vec3d isotropic_direction(uint64_t id, uint64_t seed, uint32_t draw) {
  // Uniform cos(theta) and phi give a uniform density on the sphere (Archimedes' hat-box theorem).
  const double z = 2.0 * random_uniform(id, seed, kStreamSetup, draw) - 1.0;
  const double phi = 2.0 * cgs::kPi * random_uniform(id, seed, kStreamSetup, draw + 1);
  const double s = std::sqrt(std::fmax(0.0, 1.0 - z * z));
  return {s * std::cos(phi), s * std::sin(phi), z};
}

void remove_centre_of_mass(ParticleStore& s) {
  double m = 0.0;
  Vec3d mx{0, 0, 0}, mv{0, 0, 0};
  for (std::size_t i = 0; i < s.size(); ++i) {
    m += s.mass[i];
    mx += s.mass[i] * s.pos[i];
    mv += s.mass[i] * s.vel[i];
  }
  if (!(m > 0.0)) return;
  const Vec3d x0 = (1.0 / m) * mx, v0 = (1.0 / m) * mv;
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.pos[i] -= x0;
    s.vel[i] -= v0;
  }
}

}  // namespace mpsph
