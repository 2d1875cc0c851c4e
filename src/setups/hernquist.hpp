// Hernquist (1990, ApJ 356, 359) sphere of collisionless particles: rho = M a / (2 pi r (r+a)^3),
// M(<r) = M r^2 / (r+a)^2, Phi = -G M / (r+a); isotropic velocities from its ergodic distribution
// function (Hernquist 1990 eq. 17). A cuspy, centrally concentrated test case for tree accuracy,
// and the halo/bulge profile of the galaxy setups.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/particle_store.hpp"

namespace mpsph {

struct HernquistParams {
  std::size_t n = 10000;
  uint64_t seed = 1;
  double total_mass = 1.0;    // M of the untruncated model
  double scale_radius = 1.0;  // a
  // Radii are drawn from the mass profile inside r_max (0: untruncated). Particles then carry
  // m = M(<r_max)/n, and the velocities still follow the untruncated model's f(E), which leaves
  // the outskirts slightly out of equilibrium (by ~a/r_max).
  double r_max = 0.0;
  bool velocities = true;  // false: particles at rest
  // Shift to zero centre-of-mass position and velocity. Off by default: without truncation the
  // centre of mass is dominated by the few outermost particles (M(>r) ~ 2 M a/r), and the shift
  // would move the cusp away from the origin by several a at N ~ 10^4.
  bool zero_com = false;
  uint8_t type = kDarkMatter;
  double G = 1.0;
};

// p.n equal-mass particles with ids 1..n; counter-based draws random_uniform(id, seed,
// kStreamSetup, draw), independent of the thread count.
ParticleStore make_hernquist(const HernquistParams& p);

// Hernquist (1990) eq. 17 without its constant prefactor: f(E) / [M / (8 sqrt2 pi^3 a^3 v_g^3)]
// as a function of q = sqrt(-E a / (G M)) in [0, 1).
double hernquist_df_shape(double q);

}  // namespace mpsph
