// Sink particles as a physics module of the step (core/physics_module.hpp): model `none` (no
// stage) or `bate95`: stage "sinks" after the corrector (creation from the active gas, then
// accretion onto the active sinks; sinks.cpp / sinks_gpu.cu over sink_kern.hpp) and the
// diagnostics stage "sinks.csv" (sink_csv.hpp). Sinks are particle type 5.
#pragma once

#include "core/physics_module.hpp"

namespace mpsph {

// The registration entry of run/module_registry.cpp.
ModuleEntry sink_module_entry();

}  // namespace mpsph
