#include "run/module_registry.hpp"

#include "cooling/cooling_module.hpp"
#include "feedback/feedback_module.hpp"
#include "multiphase/multiphase_module.hpp"
#include "sinks/sink_module.hpp"
#include "starform/starform_module.hpp"

namespace mpsph {

const std::vector<ModuleEntry>& module_registry() {
  // One line per module; within a slot their stages run in this order. The cold phase runs after
  // cooling (DESIGN.md section 2 lists it before): warm -> cold reads the u that cooling integrated
  // over the step, so the thermal energy it takes out of the gas is the step's final one. Star
  // formation follows both: it reads the step's clouds and the cooled u. Feedback follows star
  // formation, so that stars spawned at the last order stage have their birth record (InitialMass)
  // before it reads them. Sinks run in their own
  // slot (AfterCorrect).
  static const std::vector<ModuleEntry> registry = {
      cooling_module_entry(),  multiphase_module_entry(), starform_module_entry(),
      feedback_module_entry(), sink_module_entry(),
  };
  return registry;
}

std::vector<std::unique_ptr<PhysicsModule>> make_modules(const Config& cfg, const UnitSystem& units,
                                                         Backend backend) {
  std::vector<std::unique_ptr<PhysicsModule>> modules;
  for (const ModuleEntry& e : module_registry()) modules.push_back(e.make(cfg, units, backend));
  return modules;
}

}  // namespace mpsph
