// Unit system: G and the time unit derived from length, mass and velocity; parsing of the units:
// block and of unit names.
#include "core/units.hpp"

#include <cmath>
#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

const Schema& unit_schema() {
  static const Schema s = [] {
    Schema u;
    add_unit_params(u);
    return u;
  }();
  return s;
}

UnitSystem units_of(const std::string& yaml) {
  return UnitSystem::from_config(Config::from_string(yaml, "units.yml", unit_schema()));
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] { units_of(yaml); });
}

}  // namespace

TEST_CASE("units: pc, Msun, km/s (molecular clouds)", "[core][units]") {
  const UnitSystem u =
      units_of("units: {system: physical, length: pc, mass: Msun, velocity: km/s}");
  CHECK_FALSE(u.nbody);
  // G = 4.30091e-3 pc (km/s)^2 / Msun (e.g. Binney & Tremaine 2008, back cover); our constants
  // (CODATA 2018 G, IAU 2015 Msun) give 4.3009175e-3, i.e. agreement to 2e-6.
  CHECK(u.G == Approx(4.30091e-3).epsilon(1e-5));
  // pc / (km/s) = 0.9778 Myr (rel 1e-4: the reference has four digits).
  CHECK(u.time_cgs() / cgs::Myr == Approx(0.9778).epsilon(1e-4));
  CHECK(contains(u.describe(), "0.97779 Myr"));
  CHECK(contains(u.describe(), "G = 0.00430092"));
}

TEST_CASE("units: kpc, 1e10 Msun, km/s (galaxies)", "[core][units]") {
  const UnitSystem u =
      units_of("units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}");
  // G_cgs M / (L V^2) with CODATA 2018 G and IAU 2015 Msun: 43009.1 (to 2e-6). The often quoted
  // 43007.1 is GADGET-2's value from G = 6.672e-8, Msun = 1.989e33 (5e-5 lower); consistency with
  // the pc/Msun value above is exact: the factor is 1e10 / 1e3 = 1e7.
  CHECK(u.G == Approx(43009.1).epsilon(1e-5));
  CHECK(u.G == Approx(1e7 * UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s).G).epsilon(1e-14));
  CHECK(u.time_cgs() / cgs::Gyr == Approx(0.9778).epsilon(1e-4));
  const std::string d = u.describe();
  CHECK(contains(d, "length 1 = 3.0857e+21 cm (1 kpc)"));
  CHECK(contains(d, "(1e+10 Msun)"));
  CHECK(contains(d, "(1 km/s)"));
  CHECK(contains(d, "0.97779 Gyr"));
  CHECK(contains(d, "G = 43009.2"));
}

TEST_CASE("units: to_cgs multiplies L^l M^m V^v", "[core][units]") {
  const UnitSystem u = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  // Density M/L^3, specific energy V^2, acceleration V^2/L, time L/V: rel 1e-14 is a few ulp of
  // the three pow() calls.
  CHECK(u.to_cgs({-3, 1, 0}) == Approx(1e10 * cgs::Msun / std::pow(cgs::kpc, 3)).epsilon(1e-14));
  CHECK(u.to_cgs({0, 0, 2}) == Approx(1e10).epsilon(1e-14));
  CHECK(u.to_cgs({-1, 0, 2}) == Approx(1e10 / cgs::kpc).epsilon(1e-14));
  CHECK(u.to_cgs({1, 0, -1}) == Approx(u.time_cgs()).epsilon(1e-14));
  CHECK(u.to_cgs({0, 0, 0}) == 1.0);
  // Code G in these units times the unit of G (L V^2 / M) is G in cgs.
  CHECK(u.G * u.to_cgs({1, -1, 2}) == Approx(cgs::G).epsilon(1e-14));
}

TEST_CASE("units: N-body units are the default and are flagged", "[core][units]") {
  for (const std::string yaml : {"", "units: {G: 1}", "units: {system: nbody}", "units:"}) {
    const UnitSystem u = units_of(yaml);
    CHECK(u.nbody);
    CHECK(u.G == 1.0);
    CHECK(u.to_cgs({-3, 1, 2}) == 1.0);
    CHECK(contains(u.describe(), "N-body units: G = 1"));
  }
  CHECK(error_of("units: {G: 2}") == "units.yml:1: units.G = 2 is out of range: must be 1");
}

TEST_CASE("units: numbers are cgs values", "[core][units]") {
  const UnitSystem u = units_of(
      "units: {system: physical, length: 3.0856775814913673e18, mass: 1.98841e33, "
      "velocity: 1e5}");
  CHECK(u.length_cgs == cgs::pc);
  CHECK(u.mass_cgs == cgs::Msun);
  CHECK(u.velocity_cgs == 1e5);
  CHECK(u.G == Approx(4.30091e-3).epsilon(1e-5));
}

TEST_CASE("units: errors name the key and list the valid names", "[core][units]") {
  CHECK(error_of("units: {system: physical, length: lightyear, mass: Msun, velocity: km/s}") ==
        "units.yml:1: units.length: unknown length unit 'lightyear': use one of kpc, pc, Mpc, "
        "au, km, m, cm, or a number in cm");
  CHECK(contains(error_of("units: {system: physical, length: pc, mass: -1, velocity: km/s}"),
                 "units.mass: mass unit -1 must be positive and finite"));
  CHECK(contains(error_of("units: {system: physical, length: pc, mass: Msun, velocity: 0}"),
                 "must be positive and finite"));
  CHECK(error_of("units: {system: physical, length: pc, mass: Msun}") ==
        "units.yml: missing required key 'units.velocity' (code velocity: km/s, m/s, cm/s, or a "
        "number in cm/s; required when units.system is physical)");
  // Physical names without system: physical: the message says which key turns them on.
  CHECK(error_of("units: {length: kpc, mass: 1e10Msun, velocity: km/s}") ==
        "units.yml:1: 'units.length' is only used when units.system is physical (here "
        "units.system is nbody)");
  CHECK(contains(error_of("units: {system: physical, G: 1}"), "'units.G' is only used when"));
}

TEST_CASE("units: parse_unit knows every documented name", "[core][units]") {
  CHECK(parse_unit("length", "pc") == cgs::pc);
  CHECK(parse_unit("length", "kpc") == cgs::kpc);
  CHECK(parse_unit("length", "Mpc") == 1e6 * cgs::pc);
  CHECK(parse_unit("length", "au") == cgs::au);
  CHECK(parse_unit("length", "km") == 1e5);
  CHECK(parse_unit("length", "m") == 100.0);
  CHECK(parse_unit("length", "cm") == 1.0);
  CHECK(parse_unit("mass", "Msun") == cgs::Msun);
  CHECK(parse_unit("mass", "1e10Msun") == 1e10 * cgs::Msun);
  CHECK(parse_unit("mass", "kg") == 1000.0);
  CHECK(parse_unit("mass", "g") == 1.0);
  CHECK(parse_unit("velocity", "km/s") == 1e5);
  CHECK(parse_unit("velocity", "m/s") == 100.0);
  CHECK(parse_unit("velocity", "cm/s") == 1.0);
  CHECK(parse_unit("mass", "2.5e3") == 2500.0);
  CHECK_THROWS_AS(parse_unit("mass", "pc"), Error);      // a length name for a mass
  CHECK_THROWS_AS(parse_unit("length", "3 pc"), Error);  // number and name are not combined
  CHECK_THROWS_AS(parse_unit("length", "inf"), Error);
  CHECK_THROWS_AS(parse_unit("length", ""), Error);
  CHECK_THROWS_AS(parse_unit("time", "s"), Error);
  CHECK_THROWS_AS(UnitSystem::from_cgs(1.0, -1.0, 1.0), Error);
  CHECK_THROWS_AS(UnitSystem::from_cgs(1.0, 1.0, std::nan("")), Error);
}
