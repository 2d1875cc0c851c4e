// Physics modules plug into the step by name (core/physics_module.hpp, run/module_registry.hpp):
// every module has a `none` model that runs nothing, an unknown model name lists the valid ones,
// and a chosen model's stages appear in the step list, in timing.txt and its energy account in
// energy.csv, with the total energy closing.
#include "run/module_registry.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "run/program_schema.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

const char* kBoxYaml = R"(
run: {t_end: 2.0e-4, diagnostics_every: 1}
units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
setup: {type: cooling_box, n_side: 8, box_size: 1.0, n_H: 10.0, temperature: 1.0e6, fe_h: -0.5,
        hydrogen_fraction: 0.7}
gravity: {enabled: false}
timestep: {dt_max: 1.0e-5}
)";

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("every registered module has a unique section and a `none` model chosen by default",
          "[run][modules]") {
  std::set<std::string> sections;
  for (const ModuleEntry& e : module_registry()) {
    INFO("module " << e.section);
    CHECK(sections.insert(e.section).second);
    bool has_model = false;
    for (const ParamSpec& s : program_schema().specs()) {
      if (s.path != std::string(e.section) + ".model") continue;
      has_model = true;
      REQUIRE(!s.choices.empty());
      CHECK(s.choices.front() == "none");
      CHECK(s.default_value == "none");
    }
    CHECK(has_model);
  }
  REQUIRE(!sections.empty());
  // With every default, each module is `none`: no stage, no energy account, u left to the
  // corrector.
  const Config cfg =
      Config::from_string("run: {t_end: 1}\nsetup: {type: evrard}\n", "test", program_schema());
  const UnitSystem units = UnitSystem::from_config(cfg);
  for (const auto& m : make_modules(cfg, units, Backend::Cpu)) {
    INFO("module " << m->section());
    CHECK(m->model() == "none");
    CHECK(m->stages().empty());
    CHECK(m->energy_terms().empty());
    CHECK(!m->integrates_internal_energy());
    CHECK(m->snapshot_flags().empty());
  }
}

TEST_CASE("an unknown model name is an error listing the valid ones", "[run][modules]") {
  for (const ModuleEntry& e : module_registry()) {
    const std::string yaml = std::string("run: {t_end: 1}\nsetup: {type: evrard}\n") + e.section +
                             ": {model: no_such_model}\n";
    try {
      Config::from_string(yaml, "test.yaml", program_schema());
      FAIL("accepted model no_such_model for " << e.section);
    } catch (const Error& err) {
      const std::string msg = err.what();
      INFO(msg);
      CHECK(msg.find(std::string(e.section) + ".model") != std::string::npos);
      CHECK(msg.find("none") != std::string::npos);
    }
  }
}

TEST_CASE("a module's stage runs in the step by name: step list, timing.txt, energy.csv",
          "[run][modules][cooling]") {
  const std::string on = test::scratch_dir("modules_cooling_on");
  const std::string off = test::scratch_dir("modules_cooling_off");
  {
    Simulation sim(test::run_options(on, kBoxYaml, {"cooling.model=sd93"}, std::string("cpu")));
    const auto names = sim.stage_names();
    const auto cooling = std::find(names.begin(), names.end(), "cooling");
    const auto correct = std::find(names.begin(), names.end(), "correct");
    REQUIRE(cooling != names.end());
    CHECK(cooling < correct);  // DESIGN.md section 2: cooling before the corrector
    CHECK(sim.run());
  }
  {
    Simulation sim(test::run_options(off, kBoxYaml, {"cooling.model=none"}, std::string("cpu")));
    const auto names = sim.stage_names();
    CHECK(std::find(names.begin(), names.end(), "cooling") == names.end());
    CHECK(sim.run());
  }
  CHECK(read_file(on + "/timing.txt").find("cooling") != std::string::npos);
  CHECK(read_file(off + "/timing.txt").find("cooling") == std::string::npos);
  const std::string header_on = read_file(on + "/energy.csv");
  CHECK(header_on.find(",E_potential,E_radiated,E_total,") != std::string::npos);
  CHECK(read_file(off + "/energy.csv").find(",E_potential,E_total,") != std::string::npos);
  // The gas cools: energy leaves E_thermal, enters E_radiated, and E_total stays put.
  const auto rows = test::read_energy(on);
  REQUIRE(rows.size() > 10);
  CHECK(rows.back().er > 0.1 * rows.front().eu);
  CHECK(std::fabs(rows.back().rel) < 1e-10);
  const auto rows_off = test::read_energy(off);
  CHECK(rows_off.back().eu == Approx(rows_off.front().eu).epsilon(1e-12));
}
