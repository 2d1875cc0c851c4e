// Code units from the config's `units:` block. Two strict forms, told apart by units.system:
//   units: {G: 1}                                        N-body (system defaults to nbody)
//   units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
// G in code units follows from G_cgs M / (L V^2); the time unit is L / V.
#include "core/units.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"

namespace mpsph {

namespace {

struct NamedUnit {
  const char* name;
  double cgs;
};

// Names a user may write for each quantity, with their value in cgs.
const std::vector<NamedUnit>& named_units(const std::string& quantity) {
  static const std::vector<NamedUnit> length = {
      {"kpc", cgs::kpc}, {"pc", cgs::pc}, {"Mpc", 1e6 * cgs::pc}, {"au", cgs::au}, {"km", 1e5},
      {"m", 1e2},        {"cm", 1.0}};
  static const std::vector<NamedUnit> mass = {
      {"Msun", cgs::Msun}, {"1e10Msun", 1e10 * cgs::Msun}, {"g", 1.0}, {"kg", 1e3}};
  static const std::vector<NamedUnit> velocity = {{"km/s", cgs::km_s}, {"m/s", 1e2}, {"cm/s", 1.0}};
  if (quantity == "length") return length;
  if (quantity == "mass") return mass;
  if (quantity == "velocity") return velocity;
  throw Error("parse_unit: unknown quantity '" + quantity + "' (length, mass or velocity)");
}

const char* cgs_name(const std::string& quantity) {
  return quantity == "length" ? "cm" : quantity == "mass" ? "g" : "cm/s";
}

void check_scale(const char* what, double v) {
  if (!(std::isfinite(v) && v > 0))
    throw Error(std::string("unit system: ") + what + " unit must be positive and finite, got " +
                format_number("%g", v));
}

// One code length in the largest astronomical unit in which it is at least 0.1 (pc -> 1 pc,
// kpc -> 1 kpc, 500 pc -> 0.5 kpc).
std::string natural_length(double cm) {
  const std::pair<const char*, double> scale[] = {
      {"Mpc", 1e6 * cgs::pc}, {"kpc", cgs::kpc}, {"pc", cgs::pc}, {"au", cgs::au}, {"km", 1e5}};
  for (const auto& [name, v] : scale)
    if (cm >= 0.1 * v) return format_number("%.5g ", cm / v) + name;
  return format_number("%.5g cm", cm);
}

// Likewise for time: pc/(km/s) -> 0.9778 Myr, kpc/(km/s) -> 0.9778 Gyr.
std::string natural_time(double s) {
  const std::pair<const char*, double> scale[] = {
      {"Gyr", cgs::Gyr}, {"Myr", cgs::Myr}, {"yr", cgs::year}};
  for (const auto& [name, v] : scale)
    if (s >= 0.1 * v) return format_number("%.5g ", s / v) + name;
  return format_number("%.5g s", s);
}

}  // namespace

double UnitSystem::to_cgs(const UnitDim& d) const {
  if (nbody) return 1.0;
  return std::pow(length_cgs, d.length) * std::pow(mass_cgs, d.mass) *
         std::pow(velocity_cgs, d.velocity);
}

std::string UnitSystem::describe() const {
  if (nbody)
    return "N-body units: G = 1; length, mass and velocity have no cgs scale (time unit = "
           "length/velocity)";
  return "length 1 = " + format_number("%.5g", length_cgs) + " cm (" + natural_length(length_cgs) +
         "), mass 1 = " + format_number("%.5g", mass_cgs) + " g (" +
         format_number("%.5g", mass_cgs / cgs::Msun) +
         " Msun), velocity 1 = " + format_number("%.5g", velocity_cgs) + " cm/s (" +
         format_number("%.5g", velocity_cgs / cgs::km_s) +
         " km/s), time 1 = " + format_number("%.5g", time_cgs()) + " s (" +
         natural_time(time_cgs()) + "), G = " + format_number("%.6g", G);
}

UnitSystem UnitSystem::nbody_units() {
  UnitSystem u;
  u.nbody = true;
  return u;
}

UnitSystem UnitSystem::from_cgs(double length_cgs, double mass_cgs, double velocity_cgs) {
  check_scale("length", length_cgs);
  check_scale("mass", mass_cgs);
  check_scale("velocity", velocity_cgs);
  UnitSystem u;
  u.length_cgs = length_cgs;
  u.mass_cgs = mass_cgs;
  u.velocity_cgs = velocity_cgs;
  u.G = cgs::G * mass_cgs / (length_cgs * velocity_cgs * velocity_cgs);
  return u;
}

UnitSystem UnitSystem::from_config(const Config& cfg) {
  if (cfg.get_string("units.system") == "nbody") return nbody_units();
  double scale[3];
  const char* keys[3] = {"length", "mass", "velocity"};
  for (int i = 0; i < 3; ++i) {
    const std::string path = std::string("units.") + keys[i];
    try {
      scale[i] = parse_unit(keys[i], cfg.get_string(path));
    } catch (const Error& e) {
      throw Error(cfg.origin(path) + ": " + path + ": " + e.what());
    }
  }
  return from_cgs(scale[0], scale[1], scale[2]);
}

double parse_unit(const std::string& quantity, const std::string& text) {
  const auto& names = named_units(quantity);
  for (const NamedUnit& u : names)
    if (text == u.name) return u.cgs;
  // A number is the unit in cgs; it must be the whole text.
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && !std::isspace(text[0])) {
    if (!(std::isfinite(v) && v > 0))
      throw Error(quantity + " unit " + text + " must be positive and finite");
    return v;
  }
  std::string valid;
  for (const NamedUnit& u : names) valid += std::string(valid.empty() ? "" : ", ") + u.name;
  throw Error("unknown " + quantity + " unit '" + text + "': use one of " + valid +
              ", or a number in " + cgs_name(quantity));
}

void add_unit_params(Schema& s) {
  s.add({"units.system",
         ParamType::Choice,
         "nbody",
         0,
         0,
         false,
         false,
         {"nbody", "physical"},
         "",
         "nbody: G = 1, no cgs scale; physical: code units of length, mass and velocity given "
         "below (G and the time unit derived)"});
  s.add({"units.G",
         ParamType::Double,
         "1",
         1,
         1,
         false,
         false,
         {},
         "",
         "gravitational constant in N-body units (only 1; `units: {G: 1}` states the choice)",
         "units.system=nbody"});
  s.add({"units.length",
         ParamType::String,
         std::nullopt,
         0,
         0,
         false,
         false,
         {},
         "cm",
         "code length: kpc, pc, Mpc, au, km, m, cm, or a number in cm",
         "units.system=physical"});
  s.add({"units.mass",
         ParamType::String,
         std::nullopt,
         0,
         0,
         false,
         false,
         {},
         "g",
         "code mass: Msun, 1e10Msun, g, kg, or a number in g",
         "units.system=physical"});
  s.add({"units.velocity",
         ParamType::String,
         std::nullopt,
         0,
         0,
         false,
         false,
         {},
         "cm/s",
         "code velocity: km/s, m/s, cm/s, or a number in cm/s",
         "units.system=physical"});
}

}  // namespace mpsph
