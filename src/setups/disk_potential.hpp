// The potential of a disk galaxy for its velocity calculation: the halo and bulge analytically
// (truncated Hernquist spheres), the stellar and gas disks on a cylindrical (R, z) grid, each
// grid cell a pair of rings (z and -z) summed exactly with the complete elliptic integral
// (Binney & Tremaine 2008 eq. 2.154 for the ring). Derivatives come from finite differences on the
// grid and bilinear interpolation in between (docs/galaxies.md section 3 measures the accuracy).
#pragma once

#include <vector>

#include "setups/disk_profiles.hpp"

namespace mpsph {

// Node positions x_k = a (exp(b k) - 1), k = 0..n-1: uniform spacing a b near 0, logarithmic far
// out, x_{n-1} = x_max.
struct StretchedAxis {
  int n = 0;
  double a = 1.0, b = 1.0;

  StretchedAxis() = default;
  StretchedAxis(int n_nodes, double fine_scale, double x_max);
  double node(int k) const;
  // The cell k with node(k) <= x < node(k+1) (clamped to [0, n-2]) and the fraction t in it.
  int locate(double x, double* t) const;
};

struct CylGrid {
  StretchedAxis R, z;
  int nR() const { return R.n; }
  int nz() const { return z.n; }
  int index(int i, int j) const { return i * z.n + j; }
};

// Potential at every grid node (z >= 0) of the mass in the grid's cells: cell (i, j) between
// nodes i, i+1 and j, j+1 holds cell_mass[i * (nz-1) + j] at z > 0 and the same mass mirrored at
// z < 0. Close cells are split into 6 x 6 sub-rings. OpenMP over nodes.
std::vector<double> ring_potential(const CylGrid& grid, const std::vector<double>& cell_mass,
                                   double G);

// A field on the nodes with its R and z derivatives, interpolated bilinearly.
class GridField {
 public:
  GridField() = default;
  GridField(const CylGrid& grid, std::vector<double> values);
  double value(double R, double z) const { return interp(v_, R, z); }
  double d_dR(double R, double z) const { return interp(dR_, R, z); }
  double d_dz(double R, double z) const { return interp(dz_, R, z); }
  double d2_dR2(double R, double z) const { return interp(dRR_, R, z); }
  const std::vector<double>& values() const { return v_; }
  const std::vector<double>& dR() const { return dR_; }
  const std::vector<double>& dz() const { return dz_; }
  const std::vector<double>& dRR() const { return dRR_; }

 private:
  double interp(const std::vector<double>& f, double R, double z) const;
  CylGrid g_;
  std::vector<double> v_, dR_, dz_, dRR_;
};

// The galaxy's total potential: analytic spheres + the two disk grids. Outside the grid (|z| above
// its top or R beyond its edge) a disk counts as a point mass at the centre.
struct GalaxyPotential {
  double G = 1.0;
  HernquistSphere halo, bulge;
  CylGrid grid;
  GridField stars, gas;
  double stars_mass = 0.0, gas_mass = 0.0;

  bool on_grid(double R, double z) const;
  double phi(double R, double z) const;
  double dphi_dR(double R, double z) const;
  double dphi_dz(double R, double z) const;
  double d2phi_dR2(double R, double z) const;
  // v_c^2 = R dPhi/dR in the plane, of one component.
  double vc2_halo(double R) const { return R * halo.radial_force(R, G); }
  double vc2_bulge(double R) const { return R * bulge.radial_force(R, G); }
  double vc2_stars(double R) const { return R * stars.d_dR(R, 0.0); }
  double vc2_gas(double R) const { return R * gas.d_dR(R, 0.0); }
};

// Cell masses of an exponential disk with a sech^2(z/z0) vertical profile, one side (z > 0).
std::vector<double> sech2_disk_cell_masses(const CylGrid& grid, const ExponentialDisk& disk,
                                           double z0);

}  // namespace mpsph
