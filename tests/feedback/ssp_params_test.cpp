// The feedback: section: defaults, choices, and the errors STYLE.md items 8 and 9 ask for.
#include "feedback/ssp_params.hpp"

#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "core/units.hpp"
#include "run/module_registry.hpp"
#include "run/program_schema.hpp"

using namespace mpsph;

namespace {

const char* kBase =
    "run: {t_end: 1}\nsetup: {type: evrard}\nunits: {system: physical, length: pc, mass: Msun, "
    "velocity: km/s}\n";

Config config(const std::string& yaml) {
  return Config::from_string(kBase + yaml, "test.yaml", program_schema());
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] {
    const Config c = config(yaml);
    ssp_params_from(c);
    make_modules(c, UnitSystem::from_config(c), Backend::Cpu);
  });
}

}  // namespace

TEST_CASE("feedback params: defaults and choices", "[feedback][config]") {
  FeedbackParams p = ssp_params_from(config(""));
  CHECK(!p.enabled());
  p = ssp_params_from(config("feedback: {model: ssp}\n"));
  CHECK(p.enabled());
  CHECK(p.ssp.imf == ImfKind::Salpeter);
  CHECK(p.ssp.yields == YieldKind::Rvn96);
  CHECK(p.ssp.snia == SnIaKind::Binary);
  CHECK(p.ssp.snia_binary_fraction == 0.05);
  CHECK(p.ssp.e_sn_erg == 1e51);
  CHECK(p.n_neighbours == 50);
  p =
      ssp_params_from(config("feedback: {model: ssp, imf: kroupa, yields: ww95, snia: dtd, "
                             "snia_dtd_number: 2e-3, snia_dtd_t_min_myr: 50, n_neighbours: 32, "
                             "sn_energy_erg: 5e50}\n"));
  CHECK(p.ssp.imf == ImfKind::Kroupa);
  CHECK(p.ssp.yields == YieldKind::Ww95);
  CHECK(p.ssp.snia == SnIaKind::Dtd);
  CHECK(p.ssp.snia_dtd_number == 2e-3);
  CHECK(p.ssp.snia_dtd_t_min_yr == 5e7);
  CHECK(p.ssp.snia_dtd_t_max_yr == 1.37e10);
  CHECK(p.n_neighbours == 32);
  CHECK(p.ssp.e_sn_erg == 5e50);
}

TEST_CASE("feedback params: errors name the key", "[feedback][config]") {
  CHECK(error_of("feedback: {model: ssp2}\n").find("feedback.model") != std::string::npos);
  CHECK(error_of("feedback: {model: ssp, imf: chabrier}\n").find("feedback.imf") !=
        std::string::npos);
  CHECK(error_of("feedback: {model: ssp, n_neighbours: 200}\n").find("feedback.n_neighbours") !=
        std::string::npos);
  // Keys of another choice are unknown there.
  CHECK(error_of("feedback: {model: ssp, snia_dtd_number: 1e-3}\n").find("snia_dtd_number") !=
        std::string::npos);
  CHECK(error_of("feedback: {imf: kroupa}\n").find("feedback.imf") != std::string::npos);
  CHECK(error_of("feedback: {model: ssp, snia: dtd, snia_dtd_t_min_myr: 100, "
                 "snia_dtd_t_max_myr: 50}\n")
            .find("snia_dtd_t_max_myr") != std::string::npos);
  CHECK(error_of("feedback: {model: ssp}\neos: {type: isothermal, sound_speed: 1}\n")
            .find("adiabatic") != std::string::npos);
  const std::string nbody =
      "run: {t_end: 1}\nsetup: {type: evrard}\nunits: {G: 1}\nfeedback: {model: ssp}\n";
  const std::string what = test::error_message([&] {
    const Config c = Config::from_string(nbody, "test.yaml", program_schema());
    make_modules(c, UnitSystem::from_config(c), Backend::Cpu);
  });
  CHECK(what.find("physical units") != std::string::npos);
  CHECK(error_of("feedback: {model: ssp}\n") == "");
}
