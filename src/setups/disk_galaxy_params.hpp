// Parameters of the disk-galaxy generator (setup.type = disk_galaxy, and each galaxy of
// setup.type = merger): a live Hernquist halo, a Hernquist bulge, an exponential stellar disk with
// a sech^2 vertical profile and an exponential gas disk in vertical hydrostatic equilibrium
// (docs/galaxies.md). Masses are the masses carried by the particles; lengths in code length.
#pragma once

#include <cstdint>
#include <string>

namespace mpsph {

class Config;
class Schema;

struct DiskGalaxyParams {
  // Dark halo: Hernquist profile with scale radius a, sampled inside r_max.
  double halo_mass = 95.0;  // mass in particles (inside r_max)
  double halo_scale_radius = 29.0;
  double halo_r_max = 300.0;
  long n_halo = 20000;
  // Bulge: Hernquist profile (mass 0 = no bulge).
  double bulge_mass = 1.0;
  double bulge_scale_radius = 0.6;
  double bulge_r_max = 30.0;
  long n_bulge = 2000;
  // Disk: stars + gas, each exponential in R inside r_max.
  double disk_mass = 4.0;      // stars + gas
  double gas_fraction = 0.15;  // of the disk mass
  double disk_scale_length = 3.0;
  double disk_scale_height = 0.6;  // z0 of the stellar sech^2(z/z0) profile
  double gas_scale_length = 0.0;   // 0: the stellar disk's
  double disk_r_max = 30.0;
  long n_disk = 10000;  // stellar disk particles
  long n_gas = 5000;
  // Gas: isothermal in the vertical equilibrium, with this temperature and composition.
  double gas_temperature = 1e4;  // K
  double gas_mu = 1.22;          // mean molecular weight (m_H): c_s^2 = k_B T/(mu m_H)
  double fe_h = 0.0;             // [Fe/H] of gas and stars (metal fractions scaled solar)
  double hydrogen_fraction = 0.76;
  uint64_t seed = 1;
  // The cylindrical (R, z) grid of the disks' potential (docs/galaxies.md section 3).
  int grid_n_R = 64;
  int grid_n_z = 48;
  // How the masses and lengths above were derived, for the start-up output (empty: given
  // explicitly; setup.parametrisation mmw98: setups/mmw_galaxy.hpp's summary).
  std::string derivation;
};

// The keys of one galaxy under `prefix` ("setup." or "setup.galaxy1."), existing when `when`
// holds ("setup.type=disk_galaxy", ...).
void add_disk_galaxy_params(Schema& schema, const std::string& prefix, const std::string& when);
DiskGalaxyParams disk_galaxy_params_from(const Config& cfg, const std::string& prefix);

}  // namespace mpsph
