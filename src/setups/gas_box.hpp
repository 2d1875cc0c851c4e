// A uniform periodic box of gas at rest on a cubic lattice, the part the cooling box and the SSP
// box share: its setup.* keys and its gas particles.
#pragma once

#include <cstddef>
#include <string>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/units.hpp"

namespace mpsph {

class Config;
class Schema;

struct GasBoxParams {
  int n_side = 8;                  // gas particles per side (cubic lattice)
  double box_size = 1.0;           // edge length (code length)
  double n_H = 0.1;                // hydrogen number density (cm^-3)
  double temperature = 1e7;        // initial temperature (K)
  double feh = 0.0;                // [Fe/H] (scaled solar O and Fe); -99: metal-free to 1e-96
  double hydrogen_fraction = 0.7;  // X_H
};

struct GasBox {
  ParticleStore particles;
  Box box;
};

// The keys setup.n_side, box_size, n_H, temperature, fe_h and hydrogen_fraction, used when
// `condition` holds (e.g. "setup.type=cooling_box"), with the defaults `d`.
void add_gas_box_params(Schema& schema, const std::string& condition, const GasBoxParams& d);
// Reads them into p (the other members of a derived setup's parameters are left alone).
void read_gas_box_params(const Config& cfg, GasBoxParams& p);

// The gas density n_H m_H / X_H in code units (the units must be physical).
double gas_box_density(const GasBoxParams& p, const UnitSystem& units);

// The periodic box [0, box_size)^3 and n_side^3 gas particles (ids 1 ... n) at rest on its lattice
// with rho = gas_box_density, specific energy u, X_H, z_Fe = X_H (Fe/H)_sun 10^[Fe/H] and z_O
// likewise, h = 0 (to be computed); the store has `extra` more (zeroed) slots after the gas.
GasBox make_gas_box(const GasBoxParams& p, const UnitSystem& units, double u,
                    std::size_t extra = 0);

}  // namespace mpsph
