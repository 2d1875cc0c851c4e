#include "setups/disk_sampling.hpp"

#include <cmath>

#include "core/constants.hpp"
#include "core/rng.hpp"
#include "setups/sphere_sampling.hpp"

namespace mpsph {

Vec3d sample_hernquist_position(const HernquistSphere& s, uint64_t id, uint64_t seed) {
  // M(<r)/M = r^2/(r+a)^2: sqrt(X) = r/(r+a), X in [0, X(r_max)).
  const double x_max = std::pow(s.r_max / (s.r_max + s.a), 2);
  const double sx = std::sqrt(x_max * random_uniform(id, seed, kStreamSetup, 0));
  const double r = s.a * sx / (1.0 - sx);
  return r * isotropic_direction(id, seed, 1);
}

namespace {

Vec3d in_plane(double R, double u_phi) {
  const double phi = 2.0 * cgs::kPi * u_phi;
  return {R * std::cos(phi), R * std::sin(phi), 0.0};
}

}  // namespace

Vec3d sample_sech2_disk_position(const ExponentialDisk& d, double z0, double z_max, uint64_t id,
                                 uint64_t seed) {
  Vec3d x = in_plane(d.radius_of_fraction(random_uniform(id, seed, kStreamSetup, 0)),
                     random_uniform(id, seed, kStreamSetup, 1));
  for (uint32_t draw = 2;; ++draw) {
    const double u = random_uniform(id, seed, kStreamSetup, draw);
    const double z = z0 * std::atanh(2.0 * u - 1.0);
    if (std::isfinite(z) && std::fabs(z) <= z_max) {
      x.z = z;
      return x;
    }
  }
}

Vec3d sample_gas_disk_position(const GasVerticalStructure& gas, uint64_t id, uint64_t seed) {
  const double R = gas.disk.radius_of_fraction(random_uniform(id, seed, kStreamSetup, 0));
  Vec3d x = in_plane(R, random_uniform(id, seed, kStreamSetup, 1));
  const double z = gas.sample_height(R, random_uniform(id, seed, kStreamSetup, 2),
                                     random_uniform(id, seed, kStreamSetup, 3));
  x.z = random_uniform(id, seed, kStreamSetup, 4) < 0.5 ? -z : z;
  return x;
}

}  // namespace mpsph
