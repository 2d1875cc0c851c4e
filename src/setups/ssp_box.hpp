// SSP box: one simple stellar population (a star particle of type 3 at the centre, at rest) in a
// uniform periodic box of gas at rest at given n_H and T, for the feedback module
// (docs/feedback.md): the gas is enriched by the population's ejecta, and its [O/Fe] follows the
// population's yields (SN II first, SN Ia later). Gravity is meant to be off.
#pragma once

#include "core/units.hpp"
#include "setups/gas_box.hpp"

namespace mpsph {

class Config;
class Schema;

// The gas box's keys (defaults 12^3 particles, n_H 1 cm^-3, 1e4 K, metal-free) and the star's.
struct SspBoxParams : GasBoxParams {
  SspBoxParams() {
    n_side = 12;
    n_H = 1.0;
    temperature = 1e4;
    feh = -99.0;
  }
  double mu = 0.59;        // mean molecular weight of the gas (u = k T / ((gamma-1) mu m_H))
  double star_mass = 1e4;  // initial mass of the population (Msun)
  double star_age = 0.0;   // its age at t = 0 (Myr): birth time -star_age
  double star_metallicity = 0.02;  // its birth metal mass fraction Z (sets lifetimes and yields)
};

using SspBoxSetup = GasBox;

// Gas on a cubic lattice (rho = n_H m_H / X_H, u from T and mu, metals scaled solar by [Fe/H]),
// then the star (type 3, id n_gas + 1) at the box centre offset by a quarter cell so that it sits
// off the lattice's symmetry points, with the gas composition. Needs physical units.
SspBoxSetup make_ssp_box(const SspBoxParams& p, const UnitSystem& units, double gamma);

// setup.* keys of setup.type = ssp_box, and reading them.
void add_ssp_box_params(Schema& schema);
SspBoxParams ssp_box_params_from(const Config& cfg);

}  // namespace mpsph
