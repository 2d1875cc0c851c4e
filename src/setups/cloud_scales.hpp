// Scales of a self-gravitating isothermal cloud used by the molecular-cloud setups to describe
// themselves at start: free-fall time, energies, and the density and smoothing length at which
// the Jeans mass falls to the resolution limit. Any consistent unit system (G in code units).
#pragma once

#include <cmath>

#include "core/constants.hpp"

namespace mpsph {

// t_ff = sqrt(3 pi / (32 G rho)) of a uniform sphere of density rho.
inline double free_fall_time(double rho, double G) {
  return std::sqrt(3.0 * cgs::kPi / (32.0 * G * rho));
}

// Mean density 3 M / (4 pi R^3) of a sphere.
inline double mean_density(double mass, double radius) {
  return 3.0 * mass / (4.0 * cgs::kPi * radius * radius * radius);
}

// Potential energy of a sphere with rho ~ 1/r (M(<r) = M (r/R)^2): W = -2/3 G M^2 / R.
inline double potential_energy_r_inverse(double mass, double radius, double G) {
  return -2.0 / 3.0 * G * mass * mass / radius;
}

// Potential energy of a uniform sphere: W = -3/5 G M^2 / R.
inline double potential_energy_uniform(double mass, double radius, double G) {
  return -0.6 * G * mass * mass / radius;
}

// Thermal energy of isothermal gas of sound speed c_s: 3/2 M c_s^2 (the E_th of the virial
// ratio alpha = E_th/|W|, e.g. alpha = 0.26 for Boss & Bodenheimer 1979).
inline double isothermal_thermal_energy(double mass, double c_s) {
  return 1.5 * mass * c_s * c_s;
}

// Jeans mass of a sphere of diameter lambda_J = sqrt(pi c_s^2 / (G rho)):
// M_J = pi/6 rho lambda_J^3 = pi^(5/2)/6 c_s^3 / (G^(3/2) rho^(1/2)).
inline double jeans_mass(double rho, double c_s, double G) {
  return std::pow(cgs::kPi, 2.5) / 6.0 * c_s * c_s * c_s / (std::pow(G, 1.5) * std::sqrt(rho));
}

// Density at which M_J equals the minimum resolvable mass 2 N_B m (Bate & Burkert 1997, MNRAS
// 288, 1060): above it, collapse is no longer resolved.
inline double jeans_resolution_density(double particle_mass, int n_neighbours, double c_s,
                                       double G) {
  const double m_min = 2.0 * n_neighbours * particle_mass;
  const double a = std::pow(cgs::kPi, 2.5) / 6.0 * c_s * c_s * c_s / (std::pow(G, 1.5) * m_min);
  return a * a;
}

// Smoothing length at density rho with N_B particles of mass m inside 2h:
// 4 pi/3 (2h)^3 rho = N_B m. At the Jeans-resolution density this is the gravity softening that
// Bate & Burkert (1997) ask to match to h (equal softening and smoothing at the resolution limit).
inline double smoothing_length_at(double rho, double particle_mass, int n_neighbours) {
  return 0.5 * std::cbrt(3.0 * n_neighbours * particle_mass / (4.0 * cgs::kPi * rho));
}

}  // namespace mpsph
