// The complete parameter schema of the program: the run, units, setup and core physics keys, and
// the keys of every registered physics module.
#pragma once

#include "core/config.hpp"

namespace mpsph {

const Schema& program_schema();

}  // namespace mpsph
