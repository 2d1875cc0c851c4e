// The run layer with a non-adiabatic EOS (docs/eos.md): what is refused, and what energy.csv says.
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

const char* kCoolingBox = R"(
run: {t_end: 2.0e-4}
units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
setup: {type: cooling_box, n_side: 8, box_size: 1.0, n_H: 10.0, temperature: 1.0e6, fe_h: -0.5,
        hydrogen_fraction: 0.7}
gravity: {enabled: false}
)";

const char* kTinyTube = R"(
run: {t_end: 0.2, max_steps: 3}
setup: {type: sod, nx_left: 16, ny_left: 16, arrangement: lattice}
gravity: {enabled: false}
eos: {type: isothermal, sound_speed: 1.0}
)";

std::string construction_error(const std::string& name, const std::string& yaml,
                               const std::vector<std::string>& overrides) {
  return test::error_message([&] {
    Simulation sim(test::run_options(test::scratch_dir(name), yaml, overrides, std::string("cpu")));
  });
}

}  // namespace

TEST_CASE("a non-adiabatic EOS refuses a module that integrates u (cooling)", "[run][eos]") {
  const std::string msg =
      construction_error("eos_cooling", kCoolingBox,
                         {"cooling.model=sd93", "eos.type=isothermal", "eos.sound_speed=10"});
  INFO(msg);
  CHECK(msg.find("eos.type isothermal sets u from the density") != std::string::npos);
  CHECK(msg.find("cooling.model sd93 integrates u") != std::string::npos);
  // Cooling with the adiabatic EOS, and an isothermal EOS without cooling, are fine.
  CHECK(construction_error("eos_cooling_ok", kCoolingBox, {"cooling.model=sd93"}).empty());
  CHECK(construction_error("eos_iso_ok", kCoolingBox,
                           {"eos.type=barotropic", "eos.sound_speed=10", "eos.rho_crit=1e10"})
            .empty());
}

TEST_CASE("a non-adiabatic EOS refuses the u/|du/dt| time-step criterion", "[run][eos]") {
  const std::string msg =
      construction_error("eos_use_energy", kTinyTube, {"timestep.use_energy=true"});
  INFO(msg);
  CHECK(msg.find("timestep.use_energy") != std::string::npos);
}

TEST_CASE(
    "an isothermal run keeps u on the EOS and says in energy.csv that E_total is not "
    "conserved",
    "[run][eos]") {
  const std::string out = test::scratch_dir("eos_tiny_tube");
  Simulation sim(test::run_options(out, kTinyTube, {}, std::string("cpu")));
  sim.run();
  REQUIRE(sim.step_count() == 3);
  const ParticleStore& s = sim.particles();
  // u = c_s^2/(gamma - 1) = 1.5 exactly (one double division) although the tube is moving and
  // du/dt != 0: the corrector leaves u alone.
  double dudt_max = 0;
  for (std::size_t i = 0; i < s.n_gas(); ++i) {
    CHECK(s.u[i] == 1.0 / (5.0 / 3.0 - 1.0));
    dudt_max = std::max(dudt_max, std::fabs(s.dudt[i]));
  }
  CHECK(dudt_max > 0.0);
  std::ifstream f(out + "/energy.csv");
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str().find("eos.type = isothermal") != std::string::npos);
  CHECK(ss.str().find("E_total is NOT conserved") != std::string::npos);
}
