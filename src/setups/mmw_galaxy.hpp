// The Mo, Mao & White (1998, MNRAS 295, 319; "MMW98") parametrisation of a disk galaxy, in the
// form Springel, Di Matteo & Hernquist (2005, MNRAS 361, 776) use for merger initial conditions:
// a halo of virial velocity V200 (or mass M200) and concentration c, spin parameter lambda, disk
// and bulge mass fractions m_d, m_b and the disk's share j_d of the halo's angular momentum give
// the masses and scale lengths of the disk_galaxy generator (docs/galaxies.md):
//
//   r200 = V200 / (10 H),  M200 = V200^3 / (10 G H)              (mean density 200 rho_crit)
//   halo: Hernquist, total mass (1 - m_d - m_b) M200, scale radius
//         a = r_s sqrt(2 [ln(1 + c) - c / (1 + c)]), r_s = r200 / c   (the NFW halo's inner
//         density)
//   J_halo = sqrt(2) lambda M200 r200 V200 / sqrt(f_c)  (lambda = J |E|^1/2 / (G M^5/2) with the
//            NFW energy E = -G M200^2 f_c / (2 r200); MMW98 eq. 22-23)
//   disk:  M_d = m_d M200, exponential, J_d = j_d J_halo = M_d R_d int_0^inf v_c(R_d u) u^2 e^-u
//   du,
//          solved for R_d by fixed-point iteration with the circular velocity of halo, bulge and
//          the (razor-thin, Freeman 1970) disk itself. The halo does not contract adiabatically:
//          the generator's halo is the Hernquist sphere above, so v_c is the generator's, and R_d
//          is smaller than MMW98's f_R fit (which assumes a contracted NFW halo) by a few per cent.
//   bulge: Hernquist, M_b = m_b M200, scale radius bulge_scale R_d; disk z0 = disk_height R_d.
#pragma once

#include <cmath>
#include <string>

#include "setups/disk_galaxy_params.hpp"

namespace mpsph {

struct Mmw98Inputs {
  double v200 = 0.0;  // code velocity (0: from m200)
  double m200 = 0.0;  // code mass (0: from v200); exactly one of the two is set
  double concentration = 9.0;
  double spin = 0.033;             // lambda
  double disk_fraction = 0.041;    // m_d
  double bulge_fraction = 0.0137;  // m_b
  double j_d = 0.0;                // the disk's share of J_halo (0: j_d = m_d)
  double bulge_scale = 0.2;        // bulge scale radius / R_d
  double disk_height = 0.2;        // z0 / R_d
};

struct Mmw98Galaxy {
  double v200 = 0, m200 = 0, r200 = 0;
  double f_c = 0;         // MMW98 eq. 23
  double halo_mass = 0;   // Hernquist total mass (untruncated)
  double halo_scale = 0;  // a
  double disk_mass = 0;   // stars + gas
  double bulge_mass = 0;
  double bulge_scale = 0;  // bulge Hernquist scale radius
  double R_d = 0;
  double z0 = 0;
  double J_halo = 0;
  double J_disk = 0;  // j_d J_halo, which the disk of scale length R_d carries
  int iterations = 0;
};

// MMW98 eq. 23: the NFW halo's energy relative to a singular isothermal sphere's.
double nfw_energy_factor(double c);
// The Hernquist scale radius whose inner density matches an NFW halo of the same mass
// (Springel et al. 2005 eq. 2).
double hernquist_scale_for_nfw(double r200, double c);
// Circular velocity squared of a razor-thin exponential disk (Freeman 1970):
// v^2 = 2 G M / R_d y^2 [I0(y) K0(y) - I1(y) K1(y)], y = R / (2 R_d).
double exponential_disk_vc2(double R, double mass, double R_d, double G);
// J / M of an exponential disk of scale length R_d with circular velocity v_c^2 = vc2(R):
// R_d int_0^inf v_c(R_d u) u^2 e^-u du (composite Simpson on [0, 50]; relative error < 1e-10 for
// smooth v_c).
template <class Vc2>
double exponential_disk_specific_j(double R_d, const Vc2& vc2);

// Solves for R_d (mpsph::Error when the inputs are inconsistent or the iteration does not
// converge). G and H (the Hubble constant) in code units.
Mmw98Galaxy solve_mmw98(const Mmw98Inputs& in, double G, double H);

// The generator's parameters from the solution: halo.mass is the Hernquist mass inside
// p.halo_r_max (the particles' mass), bulge.mass likewise inside p.bulge_r_max, disk.mass = M_d
// (the disk's particles carry all of it; disk.r_max must hold it: at least 2 R_d, checked by the
// generator).
void apply_mmw98(const Mmw98Galaxy& g, DiskGalaxyParams& p);

// Two lines for the start-up output: the inputs' derived quantities in kpc, Msun and km/s.
std::string mmw98_summary(const Mmw98Galaxy& g, double length_kpc, double mass_msun,
                          double velocity_kms);

template <class Vc2>
double exponential_disk_specific_j(double R_d, const Vc2& vc2) {
  const int n = 20000;  // intervals (even)
  const double u_max = 50.0, du = u_max / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double u = k * du;
    const double v2 = vc2(R_d * u);
    const double f = (v2 > 0.0 ? std::sqrt(v2) : 0.0) * u * u * std::exp(-u);
    sum += f * (k == 0 || k == n ? 1.0 : (k % 2 ? 4.0 : 2.0));
  }
  return R_d * sum * du / 3.0;
}

}  // namespace mpsph
