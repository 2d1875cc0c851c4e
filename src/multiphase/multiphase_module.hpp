// The cold phase as a physics module of the step (core/physics_module.hpp): model `none` (no
// stage) or `sticky_clouds` (one stage, "cold phase": cloud-cloud collisions, then warm -> cold
// conversion of the gas; energy accounts E_collisions and E_cloud_formation; the mass of each
// phase on every energy.csv row).
#pragma once

#include "core/physics_module.hpp"

namespace mpsph {

// The registration entry of run/module_registry.cpp.
ModuleEntry multiphase_module_entry();

}  // namespace mpsph
