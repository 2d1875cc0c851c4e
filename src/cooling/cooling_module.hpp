// Radiative cooling as a physics module of the step (core/physics_module.hpp): model `none`
// (no stage; the corrector integrates u) or `sd93` (one stage, "cooling", which integrates u
// implicitly with the hydro du/dt and accounts the radiated energy as E_radiated).
#pragma once

#include "core/physics_module.hpp"

namespace mpsph {

// The registration entry of run/module_registry.cpp.
ModuleEntry cooling_module_entry();

}  // namespace mpsph
