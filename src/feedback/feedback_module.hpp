// SSP feedback as a physics module of the step (core/physics_module.hpp): model `none` (no stage)
// or `ssp`: stage "feedback" after the forces, in which every active star (type 3 or 4 with an
// initial mass) returns to its N_B nearest gas particles what its simple stellar population
// released over its step (feedback.cpp / feedback_gpu.cu over feedback_kern.hpp; docs/feedback.md).
// Its energy account is E_feedback (< 0: injected).
#pragma once

#include "core/physics_module.hpp"

namespace mpsph {

// The energy.csv column of the module's account: minus the SN energy injected (code energy). Other
// modules read it by this name from StageArgs::accounts (sfr.csv reports it).
constexpr const char* kFeedbackEnergyColumn = "E_feedback";

// The registration entry of run/module_registry.cpp.
ModuleEntry feedback_module_entry();

}  // namespace mpsph
