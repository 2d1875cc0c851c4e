// The eos section is strict (src/sph/eos_params.cpp): the type is one of the listed names, c_s is
// given one way only (eos.sound_speed, or eos.temperature with eos.mu), required keys are
// required, and the piecewise breaks must increase.
#include "sph/eos_params.hpp"

#include <cmath>
#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

using namespace mpsph;

namespace {

const Schema& eos_schema() {
  static const Schema s = [] {
    Schema x;
    add_unit_params(x);
    add_eos_params(x);
    return x;
  }();
  return s;
}

EosParams eos_of(const std::string& yaml) {
  return eos_params_from(Config::from_string(yaml, "eos.yml", eos_schema()));
}

// The error message of loading `yaml`, or "" when it loads.
std::string error_of(const std::string& yaml) {
  try {
    eos_of(yaml);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* kCloudUnits = "units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n";

}  // namespace

TEST_CASE("eos: adiabatic is the default", "[sph][eos][params]") {
  const EosParams e = eos_of("");
  CHECK(e.kind == EosKind::Adiabatic);
  CHECK(e.gamma == 5.0 / 3.0);
  CHECK(std::string(eos_type_name(e.kind)) == "adiabatic");
}

TEST_CASE("eos: an unknown type is refused with the valid names", "[sph][eos][params]") {
  const std::string msg = error_of("eos: {type: polytropic}\n");
  INFO(msg);
  CHECK(has(msg, "eos.type"));
  CHECK(has(msg, "polytropic"));
  for (const char* t : {"adiabatic", "isothermal", "barotropic", "piecewise"}) CHECK(has(msg, t));
}

TEST_CASE("eos: c_s given directly", "[sph][eos][params]") {
  const EosParams e = eos_of("eos: {type: isothermal, sound_speed: 0.3}\n");
  CHECK(e.kind == EosKind::Isothermal);
  CHECK(e.sound_speed == 0.3);
  const EosParams b = eos_of("eos: {type: barotropic, sound_speed: 0.2, rho_crit: 5}\n");
  CHECK(b.kind == EosKind::Barotropic);
  CHECK(b.sound_speed == 0.2);
  CHECK(b.rho_crit == 5.0);
}

TEST_CASE("eos: c_s from T and mu, c_s^2 = k_B T/(mu m_H) in code velocity", "[sph][eos][params]") {
  const EosParams e =
      eos_of(std::string(kCloudUnits) +
             "eos: {type: isothermal, sound_speed_from: temperature, temperature: 20, mu: 2.3}\n");
  const double cs_kms = std::sqrt(cgs::k_B * 20.0 / (2.3 * cgs::m_H)) / 1e5;
  CHECK(e.sound_speed == Approx(cs_kms).epsilon(1e-14));
  // PHYSICS.md section 9: 20 K molecular gas has c_s ~ 0.3 km/s (0.268 km/s with mu = 2.3).
  CHECK(e.sound_speed == Approx(0.268).margin(5e-4));
}

TEST_CASE("eos: c_s must be defined exactly one way", "[sph][eos][params]") {
  SECTION("missing: no sound speed at all") {
    const std::string msg = error_of("eos: {type: isothermal}\n");
    INFO(msg);
    CHECK(has(msg, "eos.sound_speed"));
  }
  SECTION("duplicate: a temperature beside the sound speed") {
    const std::string msg = error_of(std::string(kCloudUnits) +
                                     "eos: {type: isothermal, sound_speed: 0.3, temperature: 20, "
                                     "mu: 2.3}\n");
    INFO(msg);
    // The first of eos.temperature / eos.mu met is named; both apply only to the T way.
    CHECK(has(msg, "only used when eos.sound_speed_from is temperature"));
  }
  SECTION("duplicate: a sound speed beside the temperature") {
    const std::string msg = error_of(std::string(kCloudUnits) +
                                     "eos: {type: barotropic, rho_crit: 1, sound_speed_from: "
                                     "temperature, temperature: 20, mu: 2.3, sound_speed: 0.3}\n");
    INFO(msg);
    CHECK(has(msg, "eos.sound_speed"));
  }
  SECTION("temperature without mu") {
    const std::string msg =
        error_of(std::string(kCloudUnits) +
                 "eos: {type: isothermal, sound_speed_from: temperature, temperature: 20}\n");
    INFO(msg);
    CHECK(has(msg, "eos.mu"));
  }
  SECTION("temperature in N-body units has no cgs scale") {
    const std::string msg = error_of(
        "eos: {type: isothermal, sound_speed_from: temperature, temperature: 20, mu: 2.3}\n");
    INFO(msg);
    CHECK(has(msg, "physical unit system"));
  }
  SECTION("no c_s keys for the adiabatic EOS") {
    const std::string msg = error_of("eos: {type: adiabatic, sound_speed: 0.3}\n");
    INFO(msg);
    CHECK(has(msg, "eos.sound_speed"));
  }
}

TEST_CASE("eos: required and ordered break densities", "[sph][eos][params]") {
  CHECK(has(error_of("eos: {type: barotropic, sound_speed: 0.2}\n"), "eos.rho_crit"));
  CHECK(has(error_of("eos: {type: piecewise, sound_speed: 0.2, rho_1: 1, rho_2: 10}\n"),
            "eos.rho_3"));
  const std::string msg =
      error_of("eos: {type: piecewise, sound_speed: 0.2, rho_1: 1, rho_2: 1e3, rho_3: 10}\n");
  INFO(msg);
  CHECK(has(msg, "rho_1 < rho_2 < rho_3"));
  CHECK(has(error_of("eos: {type: isothermal, sound_speed: 0.2, rho_1: 1}\n"), "eos.rho_1"));
  const EosParams p =
      eos_of("eos: {type: piecewise, sound_speed: 0.2, rho_1: 1, rho_2: 10, rho_3: 1e3}\n");
  CHECK(p.kind == EosKind::Piecewise);
  CHECK(p.rho_1 == 1.0);
  CHECK(p.rho_2 == 10.0);
  CHECK(p.rho_3 == 1e3);
}
