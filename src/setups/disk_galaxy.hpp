// Disk galaxy in equilibrium (setup.type = disk_galaxy; Springel, Di Matteo & Hernquist 2005):
// live Hernquist halo (type 1), Hernquist bulge and exponential sech^2 stellar disk (type 3), and
// an exponential gas disk (type 0) in vertical hydrostatic equilibrium, with velocities from the
// Jeans equations. The pieces: disk_profiles.hpp (analytic profiles), disk_potential.* (the
// potential), disk_vertical.* (gas equilibrium), disk_velocities.* (Jeans), disk_sampling.*
// (positions). docs/galaxies.md describes the model and its measured accuracy.
#pragma once

#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "core/units.hpp"
#include "setups/disk_galaxy_params.hpp"
#include "setups/disk_velocities.hpp"
#include "setups/disk_vertical.hpp"

namespace mpsph {

// The model the particles are drawn from.
struct DiskGalaxyModel {
  DiskGalaxyParams params;
  UnitSystem units;
  double cs2 = 0.0;  // isothermal sound speed^2 of the gas (code velocity^2)
  ExponentialDisk stars, gas;
  GalaxyPotential pot;
  GasVerticalStructure gas_structure;  // valid when gas.mass > 0
  StellarDiskKinematics stellar;
};

DiskGalaxyModel build_disk_galaxy_model(const DiskGalaxyParams& p, const UnitSystem& units);

// One radius of the generator's table (code units).
struct DiskProfileRow {
  double R = 0;
  double vc_halo = 0, vc_bulge = 0, vc_stars = 0, vc_gas = 0, vc_total = 0;
  double sigma_stars = 0, sigma_gas = 0;  // surface densities
  double sigma_R = 0;                     // stellar radial dispersion (mass-weighted over z)
  double kappa = 0;
  double Q_stars = 0, Q_gas = 0;  // Toomre: sigma_R kappa/(3.36 G Sigma), c_s kappa/(pi G Sigma)
  double gas_half_height = 0;     // |z| enclosing half the gas column
};
DiskProfileRow disk_profile_row(const DiskGalaxyModel& m, double R);
// The table printed at start, in kpc, km/s and Msun/pc^2.
std::string disk_profile_table(const DiskGalaxyModel& m);

// Particles: gas (ids 1..n_gas), halo, disk stars, bulge, in that order; `id_offset` is added to
// every id. GalaxyID = galaxy_id. gamma converts the gas temperature to u. The total momentum is
// zero.
ParticleStore sample_disk_galaxy(const DiskGalaxyModel& m, double gamma, uint64_t id_offset = 0,
                                 int galaxy_id = 1);
// The galaxy's particle count, and its particles [first, first + count) as sample_disk_galaxy
// draws them (each from its own id's random numbers) before it removes the total momentum: the
// galaxy made in parts (run across ranks), whose driver removes the momentum of all parts.
std::size_t disk_galaxy_particles(const DiskGalaxyModel& m);
ParticleStore sample_disk_galaxy_range(const DiskGalaxyModel& m, double gamma, std::size_t first,
                                       std::size_t count, uint64_t id_offset = 0,
                                       int galaxy_id = 1);

}  // namespace mpsph
