// Velocities of a disk galaxy from the Jeans equations (Hernquist 1993; Springel, Di Matteo &
// Hernquist 2005, sec. 2.3), in the potential of setups/disk_potential.hpp:
//   halo, bulge  isotropic Gaussian with sigma^2(r) = 1/rho int_r^rmax rho G M_tot(<r')/r'^2 dr'
//                (spherical Jeans equation; M_tot includes the disks' mass inside the sphere)
//   stars        sigma_R^2 = sigma_z^2 = 1/rho int_z^inf rho dPhi/dz' dz' (vertical Jeans
//                equation in the full potential); mean streaming from the asymmetric drift
//                vphi^2 = v_c^2 + sigma_R^2 (1 - kappa^2/(4 Omega^2) + dln(rho sigma_R^2)/dlnR);
//                sigma_phi^2 = sigma_R^2 kappa^2 / (4 Omega^2) (epicyclic approximation)
//   gas          vphi^2 = v_c^2 + (R/rho) dP/dR = v_c^2 + R c^2 dln(rho)/dR (pressure support)
// Velocities beyond 0.95 of the local escape speed are drawn again.
#pragma once

#include <cstdint>
#include <vector>

#include "core/vec3.hpp"
#include "setups/disk_potential.hpp"
#include "setups/disk_vertical.hpp"

namespace mpsph {

struct StellarDiskKinematics {
  ExponentialDisk disk;
  double z0 = 1.0;
  GridField sigma2;      // sigma_R^2 = sigma_z^2 at the nodes
  GridField vphi2;       // mean streaming velocity squared (may be < 0: set to 0 when drawn)
  GridField sigma_phi2;  // azimuthal dispersion squared
  std::vector<double> sigma2_mass_weighted;  // per R node: (1/Sigma) int rho sigma_z^2 dz
};

StellarDiskKinematics stellar_disk_kinematics(const GalaxyPotential& pot,
                                              const ExponentialDisk& disk, double z0);

// sigma^2(r) of an isotropic spherical component in the galaxy's total mass profile.
class SphericalJeans {
 public:
  // disk_cell_masses: one side of the stellar + gas grid cells (mirrored), for M_disk(<r).
  SphericalJeans(const HernquistSphere& comp, const GalaxyPotential& pot,
                 const std::vector<double>& disk_cell_masses);
  double sigma2(double r) const;

 private:
  std::vector<double> ln_r_, sigma2_;
};

// Velocity draws for the particle `id` (counter-based, draws from `first_draw` on).
Vec3d draw_isotropic_velocity(const SphericalJeans& jeans, const GalaxyPotential& pot,
                              const Vec3d& x, uint64_t id, uint64_t seed, uint32_t first_draw);
Vec3d draw_disk_star_velocity(const StellarDiskKinematics& kin, const GalaxyPotential& pot,
                              const Vec3d& x, uint64_t id, uint64_t seed, uint32_t first_draw);
// Gas: mean streaming only (no dispersion: the thermal pressure carries it).
Vec3d gas_velocity(const GasVerticalStructure& gas, const GalaxyPotential& pot, const Vec3d& x);

// v_c^2 of the total potential in the plane and kappa^2 there.
double kappa2(const GalaxyPotential& pot, double R);

}  // namespace mpsph
