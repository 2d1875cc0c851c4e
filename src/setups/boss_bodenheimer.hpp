// The Boss & Bodenheimer (1979) rotating-cloud collapse, the standard test of sink-particle codes
// (Bate, Bonnell & Price 1995, MNRAS 277, 362; Bate & Burkert 1997, MNRAS 288, 1060): a uniform
// sphere of M = 1 Msun and R = 5e16 cm (rho0 = 3.8e-18 g/cm^3, t_ff = 1.07e12 s) in solid-body
// rotation Omega = 7.2e-13 rad/s about z, isothermal at c_s = 0.166 km/s (alpha = E_th/|W| =
// 0.26, beta = E_rot/|W| = 0.16), with an m = 2 density perturbation
// rho = rho0 (1 + A cos 2 phi), A = 0.1. It collapses to a bar that fragments into a binary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "setups/ball_sampling.hpp"

namespace mpsph {

class Config;
class Schema;
struct UnitSystem;

// All in code units.
struct BossBodenheimerParams {
  std::size_t n = 30000;   // gas particles
  double mass = 1.0;       // M
  double radius = 1.0;     // R
  double omega = 0.0;      // angular velocity about z
  double amplitude = 0.1;  // A of rho0 (1 + A cos 2 phi), 0 <= A < 1
  double u = 0.0;          // specific internal energy of the gas
  BallSampling sampling = BallSampling::Glass;
  uint64_t seed = 1;
  int glass_tile_n_side = 16;
};

// Azimuth phi of a particle whose unperturbed azimuth is phi0: the solution of
// phi + A/2 sin(2 phi) = phi0 (Newton iteration to round-off). Uniform phi0 gives the density
// 1 + A cos(2 phi), since d phi0 / d phi = 1 + A cos(2 phi); the map keeps R and z.
double perturbed_azimuth(double phi0, double amplitude);

// n equal-mass gas particles (ids 1..n) in a uniform ball of radius R centred on the origin
// (setups/ball_sampling.hpp), each moved in azimuth by perturbed_azimuth(), so the masses stay
// equal and the perturbation is in the positions; velocities omega z x r. Centre of mass at the
// origin, zero total momentum.
ParticleStore make_boss_bodenheimer(const BossBodenheimerParams& p);

// setup.* keys of setup.type = boss_bodenheimer in the published units (Msun, cm, rad/s) whatever
// the code units, and reading them (u = c_s^2/(gamma - 1) of a non-adiabatic EOS).
void add_boss_bodenheimer_params(Schema& schema);
BossBodenheimerParams boss_bodenheimer_params_from(const Config& cfg);

// Lines that describe the setup at start (density, t_ff, alpha, beta, Jeans resolution limit).
std::vector<std::string> boss_bodenheimer_summary(const BossBodenheimerParams& p,
                                                  const UnitSystem& units, double c_s,
                                                  int n_neighbours);

}  // namespace mpsph
