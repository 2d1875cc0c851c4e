// The complete parameter schema of the program: each module contributes its own keys.
#include "cooling/cooling_params.hpp"
#include "core/config.hpp"
#include "core/run_params.hpp"
#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "setups/initial_conditions.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

const Schema& program_schema() {
  static const Schema schema = [] {
    Schema s;
    add_run_params(s);
    add_unit_params(s);
    add_setup_params(s);
    add_sph_params(s);
    add_gravity_params(s);
    add_timestep_params(s);
    add_cooling_params(s);
    return s;
  }();
  return schema;
}

}  // namespace mpsph
