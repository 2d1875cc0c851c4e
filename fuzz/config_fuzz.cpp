// libFuzzer harness: the YAML config parser and the parameter structs read from it, on arbitrary
// text. Expected outcomes: a valid Config, or mpsph::Error (one-line cause). Anything else (another
// exception, a crash, a sanitizer report, a hang) is a finding. A valid config must also survive
// its own round trip: the resolved YAML parses again to the same values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "cooling/cooling_params.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "feedback/ssp_params.hpp"
#include "gravity/gravity_params.hpp"
#include "multiphase/multiphase_params.hpp"
#include "run/program_schema.hpp"
#include "run/run_params.hpp"
#include "setups/disk_galaxy_params.hpp"
#include "sinks/sink_params.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "starform/starform_params.hpp"
#include "timestep/timestep_params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const mpsph::Schema& schema = mpsph::program_schema();
  std::string resolved;
  std::map<std::string, std::string> values;
  try {
    const mpsph::Config cfg = mpsph::Config::from_string(text, "fuzz.yaml", schema);
    // What Simulation reads from a config, in its order.
    mpsph::run_params_from(cfg);
    mpsph::UnitSystem::from_config(cfg);
    mpsph::sph_params_from(cfg);
    mpsph::eos_params_from(cfg);
    mpsph::gravity_params_from(cfg);
    mpsph::timestep_params_from(cfg);
    mpsph::cooling_params_from(cfg);
    // The physics modules' parameters where their model is chosen, and the disk galaxy's (with
    // setup.parametrisation: mmw98 it solves for the disk scale length).
    auto chosen = [&](const char* key) { return cfg.get_string(key) != "none"; };
    if (chosen("multiphase.model")) mpsph::multiphase_params_from(cfg);
    if (chosen("starform.model")) mpsph::starform_params_from(cfg);
    if (chosen("feedback.model")) mpsph::ssp_params_from(cfg);
    if (chosen("sinks.model")) mpsph::sink_params_from(cfg);
    if (cfg.get_string("setup.type") == "disk_galaxy")
      mpsph::disk_galaxy_params_from(cfg, "setup.");
    resolved = cfg.resolved_yaml();
    values = cfg.values();
  } catch (const mpsph::Error&) {
    return 0;
  }
  // The resolved YAML is what checkpoints carry and restarts read back.
  const mpsph::Config again = mpsph::Config::from_string(resolved, "resolved.yaml", schema);
  if (again.values() != values) std::abort();
  return 0;
}
