// Two disk galaxies on a Keplerian orbit of two point masses (setup.type = merger; Springel, Di
// Matteo & Hernquist 2005): initial separation r0, pericentre r_p and eccentricity e (1 =
// parabolic): v^2 = G M (2/r0 - (1-e)/r_p), v_t = sqrt(G M r_p (1+e))/r0, approaching. The orbit
// lies in the x-y plane with its angular momentum along +z; galaxy 2 starts at +x from galaxy 1;
// the centre of mass is at rest at the origin. Each disk's spin points to (theta, phi) in that
// frame (spherical angles from +z). Galaxies come from the generator or from IC files; galaxy 2's
// ids follow galaxy 1's, and the GalaxyID field is 1 or 2.
#pragma once

#include <string>

#include "core/particle_store.hpp"
#include "core/units.hpp"
#include "core/vec3.hpp"
#include "setups/disk_galaxy_params.hpp"

namespace mpsph {

class Config;
class Schema;

struct MergerGalaxy {
  std::string path;  // IC file ("" = generate from `params`)
  DiskGalaxyParams params;
  double theta_deg = 0.0, phi_deg = 0.0;  // disk spin direction
};

struct MergerParams {
  MergerGalaxy galaxy[2];
  double separation = 100.0;  // r0 (code length)
  double pericentre = 5.0;    // r_p
  double eccentricity = 1.0;
};

// Relative position and velocity of galaxy 2 with respect to galaxy 1.
struct KeplerStart {
  Vec3d dx, dv;
};
KeplerStart kepler_start(double G_total_mass, double r0, double r_p, double e);

// Rotation of a galaxy's frame taking +z to (sin t cos p, sin t sin p, cos t): Rz(p) Ry(t).
Vec3d spin_rotate(const Vec3d& v, double theta_rad, double phi_rad);

// The merger's particles (gas first, sorted by type by the caller). Prints each generated
// galaxy's profile table and the orbit to stdout when `verbose`.
ParticleStore make_merger(const MergerParams& p, const UnitSystem& units, double gamma,
                          bool verbose = true);

void add_merger_params(Schema& schema);
MergerParams merger_params_from(const Config& cfg);

}  // namespace mpsph
