// Glass initial conditions: particles in a periodic unit cube relaxed by their own SPH pressure
// forces until the SPH density is uniform, without the planes of a lattice. A lattice stretched
// or squeezed along one axis (a 1D rarefaction or shock) keeps its planes, and with N_B = 50 the
// kernel then samples one or two planes on each side: at the 1.85x stretch behind a Sod
// rarefaction the SPH gradient of a linear field is 24% short and the density 2.4% high, at every
// resolution (docs/validation.md). A glass has no planes to keep.
#pragma once

#include <cstdint>
#include <vector>

#include "core/vec3.hpp"

namespace mpsph {

struct GlassParams {
  int n = 4096;           // particles in the unit cube
  uint64_t seed = 1;      // random start (counter-based: the glass is a function of n and seed)
  int n_neighbours = 50;  // N_B of the relaxation
  int max_iterations = 300;
  double target_scatter = 0.005;  // stop when std(rho)/mean(rho) falls below this
};

struct Glass {
  std::vector<Vec3d> pos;  // in [0, 1)^3, Morton order
  double rho_scatter = 0;  // std(rho)/mean(rho) of the last iteration
  int iterations = 0;
};

// Relaxes n random points in the periodic unit cube: every iteration moves each particle by
//   dx_i = 0.3 h_i^2 a_i / ((gamma - 1) u)   (at most 0.2 h_i),
// a_i the SPH pressure acceleration of uniform u (P proportional to rho), i.e. down the density
// gradient by ~ 0.6 h_i delta rho / rho. Deterministic for given parameters and thread count
// order-independent (every sum is per particle).
Glass make_glass(const GlassParams& p);

}  // namespace mpsph
