// Two colliding molecular clouds (PHYSICS.md section 9; the seed run): each of mass M and radius
// R with rho ~ 1/r (M(<r) = M (r/R)^2), isothermal gas, approaching each other head-on along x
// at a relative speed v_rel, optionally offset by an impact parameter b along y and rotating
// rigidly. Seed values: M = 2000 Msun, R = 3 pc, T = 20 K, mu = 2.3, v_rel = 5 km/s, run for
// 3 t_ff with t_ff = sqrt(3 pi / (32 G rho_mean)) = 1.92 Myr of one cloud.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "setups/ball_sampling.hpp"

namespace mpsph {

class Config;
class Schema;
struct UnitSystem;

// All in code units.
struct CloudCollisionParams {
  std::size_t n_per_cloud = 4096;
  double cloud_mass = 2000.0;     // M of each cloud
  double cloud_radius = 3.0;      // R of each cloud
  double relative_speed = 5.0;    // v_rel, along x
  double gap = 0.0;               // distance between the two surfaces along x at t = 0
  double impact_parameter = 0.0;  // b, offset of the centres along y
  Vec3d omega_1{0, 0, 0};         // angular velocity of cloud 1 (x < 0) about its centre
  Vec3d omega_2{0, 0, 0};         // of cloud 2 (x > 0)
  double u = 0.0;                 // specific internal energy of the gas
  BallSampling sampling = BallSampling::Glass;
  uint64_t seed = 1;
  int glass_tile_n_side = 16;
};

// Centres of the two clouds: (-(R + gap/2), -b/2, 0) and (+(R + gap/2), +b/2, 0), so the centre of
// mass is the origin and at gap = 0 the surfaces touch (for b = 0).
Vec3d cloud_centre(const CloudCollisionParams& p, int cloud);  // cloud 0 or 1

// 2 n_per_cloud gas particles of mass M / n_per_cloud: cloud 0 has ids 1..n (velocity
// +v_rel/2 along x), cloud 1 ids n+1..2n (velocity -v_rel/2). Each cloud is a unit ball
// (setups/ball_sampling.hpp; cloud k = 0, 1 from the ball seed 2 seed + k) stretched
// radially q -> R q^(3/2), which turns the uniform M(<q) ~ q^3 into M(<r) ~ r^2, i.e. rho ~ 1/r
// (Evrard 1988's mapping; the stretch is radial only). Each particle's velocity is the bulk
// velocity plus omega x (x - centre). Total momentum and centre of mass are zero to round-off.
ParticleStore make_cloud_collision(const CloudCollisionParams& p);

// Angular velocity for a ratio beta = E_rot/|W| of a rigidly rotating rho ~ 1/r sphere:
// E_rot = 1/2 I Omega^2 with I = M R^2/3, |W| = 2/3 G M^2/R, so Omega = sqrt(4 G M beta / R^3).
double cloud_omega_for_beta(double beta, double mass, double radius, double G);

// setup.* keys of setup.type = cloud_collision (in Msun, pc, km/s whatever the code units) and
// reading them. The gas's u comes from the EOS's sound speed (a non-adiabatic eos.type is
// required: the clouds' temperature is the EOS's), u = c_s^2/(gamma - 1).
void add_cloud_collision_params(Schema& schema);
CloudCollisionParams cloud_collision_params_from(const Config& cfg);

// Lines that describe the setup at start: masses, positions, t_ff, energies, the Jeans
// resolution limit and the matching gravity softening.
std::vector<std::string> cloud_collision_summary(const CloudCollisionParams& p,
                                                 const UnitSystem& units, double c_s,
                                                 int n_neighbours);

}  // namespace mpsph
