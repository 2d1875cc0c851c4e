// Cooling box: a uniform periodic box of gas at rest at given n_H, T and [Fe/H]. Pressure forces
// cancel and gravity is off, so the gas only cools: T(t) follows du/dt = -n_H^2 Lambda(T)/rho,
// the test of the cooling module against an independent integration (tests/cooling/).
#pragma once

#include "cooling/cooling.hpp"
#include "setups/gas_box.hpp"

namespace mpsph {

class Config;
class Schema;

// The gas box's keys with its defaults (8^3 particles, n_H 0.1 cm^-3, 1e7 K, solar).
struct CoolingBoxParams : GasBoxParams {};

using CoolingBoxSetup = GasBox;

// Gas particles on a cubic lattice with rho = n_H m_H/X_H, u = u(T) of the model's mu, metal mass
// fractions X_H, z_Fe = X_H (Fe/H)_sun 10^[Fe/H], z_O likewise (scaled solar), h = 0 (to be
// computed).
CoolingBoxSetup make_cooling_box(const CoolingBoxParams& p, const CoolingModel& model);

// setup.* keys of setup.type = cooling_box, and reading them.
void add_cooling_box_params(Schema& schema);
CoolingBoxParams cooling_box_params_from(const Config& cfg);

}  // namespace mpsph
