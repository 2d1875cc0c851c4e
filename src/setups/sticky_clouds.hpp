// Sticky-cloud box: cold clouds only (type 2), uniformly random in a periodic box, with random
// Gaussian velocities and no gas: the cloud-cloud collision physics alone (multiphase.model
// sticky_clouds; PHYSICS.md section 5). Equal initial masses, so the mass spectrum that develops
// is the collisions' own.
#pragma once

#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class Config;
class Schema;

struct StickyCloudsSetupParams {
  int n_clouds = 2000;
  double box_size = 500.0;    // edge of the periodic box (code length)
  double cloud_mass = 1e4;    // mass of every cloud (code mass)
  double sigma_v = 5.0;       // 1D velocity dispersion (code velocity)
  double metal_spread = 0.3;  // z_Fe, z_O = solar (X_H 0.7) x 10^(+-spread), uniform in dex
  uint64_t seed = 1;          // counter-based random numbers (core/rng.hpp)
};

struct StickyCloudsSetup {
  ParticleStore particles;
  Box box;
};

// Positions uniform in [0, L)^3, velocities Gaussian with dispersion sigma_v per component and
// the mean (mass-weighted) removed, so the total momentum is zero to round-off; ids 1..n.
StickyCloudsSetup make_sticky_clouds(const StickyCloudsSetupParams& p);

void add_sticky_clouds_setup_params(Schema& schema);
StickyCloudsSetupParams sticky_clouds_setup_params_from(const Config& cfg);

}  // namespace mpsph
