// Sod (1978) shock tube in 3D in a periodic box [0, 2) x [0, Ly) x [0, Ly): left state (rho_L,
// P_L) for x < 1, right state for x >= 1, at rest. Equal-mass particles whose mean spacings differ
// by k = (rho_L/rho_R)^(1/3), which must be an integer (2 for 1 / 0.125) so that both sides tile
// the same transverse box:
//   glass (default): cubes of side Ly tiled along x, each a periodic glass (setups/glass.hpp) of
//     ny_left^3 particles on the left and (ny_left/k)^3 on the right (nx_left/ny_left cubes per
//     side, so ny_left must divide nx_left);
//   lattice: two cubic lattices, nx_left x ny_left^2 and (nx_left/k) x (ny_left/k)^2. Behind the
//     rarefaction the left lattice is stretched 1.85x along x and the kernel samples its planes
//     so coarsely that the plateau is off by 7% at every resolution (docs/validation.md).
//     Periodicity in x makes a second, mirrored
// Riemann problem at x = 0 = 2; compare with the exact solution in 0.5 < x < 1.5 until the waves
// reach that region (t <~ 0.25 for the standard states).
#pragma once

#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

struct SodParams {
  int nx_left = 64;  // lattice points along x in the left (dense) half
  int ny_left = 16;  // lattice points along y and z in the left half
  double rho_left = 1.0, p_left = 1.0;
  double rho_right = 0.125, p_right = 0.1;
  double gamma = 5.0 / 3.0;
  bool glass = true;  // glass cubes (else cubic lattices)
  uint64_t seed = 1;  // of the glasses
};

struct SodSetup {
  ParticleStore particles;
  Box box;
};

SodSetup make_sod(const SodParams& p);

}  // namespace mpsph
