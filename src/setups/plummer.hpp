// Plummer (1911) sphere of collisionless particles, sampled with the recipe of Aarseth, Henon &
// Wielen (1974, A&A 37, 183): density rho = 3 M / (4 pi a^3) (1 + r^2/a^2)^(-5/2), isotropic
// velocities from the ergodic distribution function f(E) ~ (-E)^(7/2). The default scale radius
// a = 3 pi / 16 makes the virial radius 1 in N-body units (G = M = 1), so that the total energy is
// E = -1/4 and the potential energy W = -3 pi G M^2 / (32 a) = -1/2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/constants.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

constexpr double kPlummerVirialScaleRadius = 3.0 * cgs::kPi / 16.0;

// n equal-mass particles of the given type with ids 1..n. The model is not truncated (the radius
// of the outermost particle grows like a N^(1/3)). Random numbers are counter-based:
// random_uniform(id, seed, kStreamSetup, draw), so a particle's sample depends only on its id and
// the seed. zero_com shifts the sample to zero centre-of-mass position and velocity. G sets the
// velocity scale (sqrt(G M / a)).
ParticleStore make_plummer(std::size_t n, uint64_t seed, double total_mass = 1.0,
                           double scale_radius = kPlummerVirialScaleRadius, bool zero_com = true,
                           uint8_t type = kDarkMatter, double G = 1.0);

}  // namespace mpsph
