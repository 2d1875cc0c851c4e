// The unit system of a run: code units of length, mass and velocity (time = length/velocity), from
// the config's `units:` block, e.g. {length: kpc, mass: 1e10Msun, velocity: km/s} or {G: 1} for
// N-body units. G in code units and the time unit are derived and printed at start.
#pragma once

#include <string>

#include "core/particle_fields.hpp"

namespace mpsph {

class Config;
class Schema;

struct UnitSystem {
  bool nbody = false;         // G = 1 with no cgs scale: conversion factors are 1 and flagged
  double length_cgs = 1.0;    // cm
  double mass_cgs = 1.0;      // g
  double velocity_cgs = 1.0;  // cm/s
  double G = 1.0;             // gravitational constant in code units

  double time_cgs() const { return length_cgs / velocity_cgs; }
  // cgs value of one code unit of the given dimension.
  double to_cgs(const UnitDim& d) const;
  // Human-readable summary, e.g. "length 1 kpc = 3.0857e21 cm, ..., G = 43007.1, time unit
  // 0.9778 Gyr".
  std::string describe() const;

  static UnitSystem nbody_units();
  // From length/mass/velocity in cgs (G derived).
  static UnitSystem from_cgs(double length_cgs, double mass_cgs, double velocity_cgs);
  static UnitSystem from_config(const Config& cfg);
};

// Parses a unit name or a number in cgs for the given quantity ("length": pc, kpc, Mpc, cm, au,
// km, m; "mass": Msun, 1e10Msun, g, kg; "velocity": km/s, cm/s, m/s). Throws mpsph::Error listing
// the valid names.
double parse_unit(const std::string& quantity, const std::string& text);

void add_unit_params(Schema& schema);

}  // namespace mpsph
