// Equal-mass points filling the unit ball with a uniform mean density, the starting point of the
// molecular-cloud setups (cloud_collision stretches them radially to rho ~ 1/r, boss_bodenheimer
// shifts them in azimuth for its m = 2 perturbation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/vec3.hpp"

namespace mpsph {

enum class BallSampling {
  Glass,  // cut from tiled relaxed glass cubes: no lattice planes, density scatter ~1%
  Random  // independent uniform points: Poisson noise, sqrt(N) in every count
};

BallSampling ball_sampling_from_name(const std::string& name);  // "glass" or "random"

struct BallParams {
  std::size_t n = 4096;  // points in the ball (exactly)
  BallSampling sampling = BallSampling::Glass;
  uint64_t seed = 1;            // glass relaxation and tiling offset, or the random draws
  int glass_tile_n_side = 16;   // the glass cube holds glass_tile_n_side^3 points
  double glass_scatter = 0.01;  // relax the glass cube until std(rho)/rho < this
};

// Exactly p.n points in the unit ball, centre of mass at the origin (to round-off).
// Glass: a periodic glass cube of glass_tile_n_side^3 points (setups/glass.hpp) is tiled, with a
// seeded random offset of the tiling, at the spacing that puts p.n points into the unit ball; the
// p.n points nearest the centre are kept and scaled so that the ball's edge lies halfway between
// the n-th and the (n+1)-th. Random: radius U^(1/3), isotropic direction (counter-based draws of
// (index, seed), stream kStreamSetup).
std::vector<Vec3d> unit_ball(const BallParams& p);

}  // namespace mpsph
