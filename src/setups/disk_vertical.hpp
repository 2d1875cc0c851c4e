// The gas disk's vertical hydrostatic equilibrium (Springel, Di Matteo & Hernquist 2005, sec. 2.3,
// for an isothermal gas): at each radius rho_g(R, z) = rho_0(R) exp(-[Phi(R, z) - Phi(R, 0)] / c^2)
// with rho_0 fixed by the exponential surface density. Phi includes the gas's own potential, so the
// structure is iterated: potential of the gas -> vertical profiles -> potential, until the
// mid-plane densities change by less than a tolerance.
#pragma once

#include <vector>

#include "setups/disk_potential.hpp"

namespace mpsph {

struct GasVerticalStructure {
  CylGrid grid;
  ExponentialDisk disk;
  double cs2 = 0.0;                // isothermal sound speed squared (code velocity^2)
  std::vector<double> cumulative;  // per R node: mass fraction of the half column below z node
  GridField ln_rho;                // ln of the gas density (code density) at the nodes
  int iterations = 0;
  double last_change = 0.0;  // max |d ln rho_0| of the last iteration

  // One side (z > 0) of the gas mass in each grid cell.
  std::vector<double> cell_masses() const;
  // |z| of a gas particle at radius R from three uniform numbers in [0, 1).
  double sample_height(double R, double u_node, double u_cell) const;
  // rho_0(R) interpolated (code density).
  double midplane_density(double R) const { return std::exp(ln_rho.value(R, 0.0)); }
};

// Solves the equilibrium in `pot` (its halo, bulge and stellar grid set); leaves pot.gas set to the
// potential of the returned structure. Starts from a sech^2(z/z_guess) profile.
GasVerticalStructure solve_gas_equilibrium(GalaxyPotential& pot, const ExponentialDisk& gas,
                                           double cs2, double z_guess, int max_iterations = 40,
                                           double tolerance = 1e-4);

}  // namespace mpsph
