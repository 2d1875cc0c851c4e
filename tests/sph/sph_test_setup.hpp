// Particle sets and brute-force references shared by the SPH tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/constants.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "core/vec3.hpp"
#include "setups/lattice.hpp"

namespace mpsph::test {

// Gas-only store with the given positions and equal masses, at rest, u = 1.
inline ParticleStore gas_store(const std::vector<Vec3d>& pos, double mass) {
  ParticleStore s;
  s.resize(pos.size());
  for (std::size_t i = 0; i < pos.size(); ++i) {
    s.pos[i] = pos[i];
    s.vel[i] = {0, 0, 0};
    s.mass[i] = mass;
    s.id[i] = i + 1;
    s.type[i] = kGas;
    s.u[i] = 1.0;
  }
  return s;
}

inline Box periodic_box(const Vec3d& lo, const Vec3d& size) {
  Box b;
  b.periodic = true;
  b.lo = lo;
  b.size = size;
  return b;
}

// Uniform random points in [lo, lo + size).
inline std::vector<Vec3d> uniform_points(std::size_t n, const Vec3d& lo, const Vec3d& size,
                                         uint64_t seed) {
  std::vector<Vec3d> p(n);
  for (std::size_t i = 0; i < n; ++i)
    p[i] = {lo.x + size.x * random_uniform(i, seed, kStreamSetup, 0),
            lo.y + size.y * random_uniform(i, seed, kStreamSetup, 1),
            lo.z + size.z * random_uniform(i, seed, kStreamSetup, 2)};
  return p;
}

// Strongly clustered points: isotropic directions, radius r = R U^3 about `centre`, so the number
// density falls as r^(-8/3) and spans many decades of h.
inline std::vector<Vec3d> clustered_points(std::size_t n, const Vec3d& centre, double radius,
                                           uint64_t seed) {
  std::vector<Vec3d> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = random_uniform(i, seed, kStreamSetup, 0);
    const double mu = 2.0 * random_uniform(i, seed, kStreamSetup, 1) - 1.0;
    const double phi = 2.0 * cgs::kPi * random_uniform(i, seed, kStreamSetup, 2);
    const double r = radius * u * u * u;
    const double s = std::sqrt(1.0 - mu * mu);
    p[i] = {centre.x + r * s * std::cos(phi), centre.y + r * s * std::sin(phi), centre.z + r * mu};
  }
  return p;
}

// Wraps every second particle into a periodic box and leaves the others where they are (inside
// or outside): pairs across a face then need the minimum image, and the tree sees both kinds of
// coordinates.
inline void wrap_every_second(ParticleStore& s, const Box& box) {
  for (std::size_t i = 0; i < s.size(); i += 2) s.pos[i] = wrap_position(s.pos[i], box);
}

// Random velocities with components uniform in [-vmax, vmax).
inline void random_velocities(ParticleStore& s, double vmax, uint64_t seed) {
  for (std::size_t i = 0; i < s.size(); ++i)
    s.vel[i] = {vmax * (2.0 * random_uniform(i, seed, kStreamSetup, 3) - 1.0),
                vmax * (2.0 * random_uniform(i, seed, kStreamSetup, 4) - 1.0),
                vmax * (2.0 * random_uniform(i, seed, kStreamSetup, 5) - 1.0)};
}

// Squared canonical distance, as every SPH loop defines it.
inline double dist2(const ParticleStore& s, std::size_t i, std::size_t j, const Box& box) {
  return norm2(min_image(s.pos[i] - s.pos[j], box));
}

// Number of gas particles (i included) with r_ij < 2 h_i, by brute force.
inline int brute_force_count(const ParticleStore& s, std::size_t i, const Box& box) {
  const double two_h = 2.0 * double(s.h[i]);
  int c = 0;
  for (std::size_t j = 0; j < s.n_gas(); ++j) c += dist2(s, i, j, box) < two_h * two_h;
  return c;
}

}  // namespace mpsph::test
