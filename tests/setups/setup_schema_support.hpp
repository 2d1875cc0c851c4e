// The schema of the setup tests that read a setup's parameters from YAML text: units, EOS and the
// setup section (what the setups' *_params_from read), without the rest of the program's keys.
#pragma once

#include "core/config.hpp"
#include "core/units.hpp"
#include "setups/initial_conditions.hpp"
#include "sph/eos_params.hpp"

namespace mpsph::test {

inline const Schema& setup_schema() {
  static const Schema s = [] {
    Schema x;
    add_unit_params(x);
    add_eos_params(x);
    add_setup_params(x);
    return x;
  }();
  return s;
}

}  // namespace mpsph::test
