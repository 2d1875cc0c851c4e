// What both molecular-cloud setups (cloud_collision, boss_bodenheimer) read besides their own
// keys: the unit system, which must be physical (their keys are in Msun, pc or cm, km/s), and
// the EOS, which must be isothermal, barotropic or piecewise (the gas temperature is the EOS's).
#pragma once

#include <string>

#include "core/units.hpp"
#include "sph/eos_params.hpp"

namespace mpsph {

class Config;

struct MolecularCloudInputs {
  UnitSystem units;
  EosParams eos;
  double u0;  // specific internal energy of the gas at the EOS sound speed: c_s^2 / (gamma - 1)
};

// Throws mpsph::Error naming setup.type when the units are N-body or the EOS adiabatic.
MolecularCloudInputs molecular_cloud_inputs(const Config& c, const std::string& setup_type);

}  // namespace mpsph
