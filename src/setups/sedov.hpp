// Sedov-Taylor point explosion (Sedov 1959; Taylor 1950): a periodic cube of side L of uniform gas
// at rest (density rho0, a tiny specific internal energy u_bg), and an energy E given to the
// n_inject particles nearest the box centre with kernel weights. The shock then follows the
// self-similar solution R_s = xi0 (E t^2/rho0)^(1/5) (xi0 = 1.15167 for gamma = 5/3) while
// R_s <~ L/2 and the swept mass dwarfs the heated one. A standard test of individual time steps:
// particles on long steps ahead of the shock must be woken before it arrives (Saitoh & Makino
// 2009). Particles: n_side^3 from a periodic glass cube of glass_n_side^3 particles
// (setups/glass.hpp), tiled (n_side/glass_n_side)^3 times.
#pragma once

#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class Config;
class Schema;

struct SedovParams {
  int n_side = 32;             // particles per box side (N = n_side^3)
  int glass_n_side = 16;       // particles per side of the tiled glass cube; divides n_side
  uint64_t seed = 1;           // of the glass
  double box_size = 1.0;       // L (code length)
  double rho0 = 1.0;           // ambient density (code density)
  double energy = 1.0;         // explosion energy E (code energy)
  double u_background = 1e-6;  // ambient specific internal energy (code velocity^2)
  int n_inject = 32;           // particles that receive E
};

struct SedovSetup {
  ParticleStore particles;
  Box box;
  Vec3d centre;  // explosion centre: the box centre
};

// Equal-mass gas particles (m = rho0 L^3 / N) at rest in [0, L)^3. The n_inject particles nearest
// the centre get u = u_bg + E w_i / (m sum_k w_k), w_i = W(r_i, h_e) the M4 kernel with 2 h_e the
// distance of the (n_inject+1)-th nearest particle, so every heated particle has w_i > 0 and the
// deposit is centred on the box centre; the thermal energy exceeds N m u_bg by exactly E.
SedovSetup make_sedov(const SedovParams& p);

// setup.* keys of setup.type = sedov, and reading them.
void add_sedov_params(Schema& schema);
SedovParams sedov_params_from(const Config& cfg);

}  // namespace mpsph
