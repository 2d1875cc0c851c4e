// The physics modules a run can use, and building the chosen models for a run.
#pragma once

#include <memory>
#include <vector>

#include "core/physics_module.hpp"

namespace mpsph {

// Every registered module, in the order their stages run within a slot.
const std::vector<ModuleEntry>& module_registry();

// The model of every registered module that `cfg` chose (model `none` included), for `backend`.
std::vector<std::unique_ptr<PhysicsModule>> make_modules(const Config& cfg, const UnitSystem& units,
                                                         Backend backend);

}  // namespace mpsph
