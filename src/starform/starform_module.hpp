// Star formation as a physics module of the step (core/physics_module.hpp): model `none` (no
// stage) or `clouds`, `probabilistic`, `katz` (PHYSICS.md section 6, docs/starform.md): one stage
// "star formation" after the forces (after cooling and the cold phase), energy account
// E_star_formation (thermal energy of the gas turned into stars), sfr.csv with every energy.csv
// row, and the snapshot flags Flag_Sfr, Flag_StellarAge, Flag_Metals.
#pragma once

#include "core/physics_module.hpp"

namespace mpsph {

// The registration entry of run/module_registry.cpp.
ModuleEntry starform_module_entry();

}  // namespace mpsph
