#include "run/program_schema.hpp"

#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "run/module_registry.hpp"
#include "run/mpi_params.hpp"
#include "run/run_params.hpp"
#include "setups/initial_conditions.hpp"
#include "sph/eos_params.hpp"
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
    add_eos_params(s);
    add_gravity_params(s);
    add_timestep_params(s);
    add_mpi_params(s);
    for (const ModuleEntry& m : module_registry()) m.add_params(s);
    return s;
  }();
  return schema;
}

}  // namespace mpsph
