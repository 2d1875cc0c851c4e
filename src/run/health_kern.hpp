// The per-step health check (issue #17), per particle, shared by the CPU scan (health.cpp) and the
// GPU step reduction: which state fields of particle i hold a non-finite or physically impossible
// value. One bit per field, in the order the step's stages write them, so the lowest bit of a
// particle names the earliest stage whose output is bad.
#pragma once

#include <cfloat>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

enum HealthBit : uint32_t {
  kBadH = 1u << 0,         // smoothing lengths: h not finite, <= 0 or collapsed below FLT_MIN
  kBadRho = 1u << 1,       // density: rho not finite or <= 0
  kBadDivV = 1u << 2,      // density: div v or |curl v| not finite
  kBadPressure = 1u << 3,  // prepare force: P or c_s not finite or < 0
  kBadDuDt = 1u << 4,      // SPH forces: du/dt not finite
  kBadGravity = 1u << 5,   // gravity: acceleration or potential not finite
  kBadAcc = 1u << 6,       // end force: total acceleration not finite
  kBadU = 1u << 7,         // correct / cooling: u not finite or < 0
  kBadMass = 1u << 8,      // mass not finite or <= 0 (a particle removed since the last order
                           // stage has mass 0 and is not checked)
  kBadVel = 1u << 9,       // correct: velocity not finite
  kBadPos = 1u << 10,      // correct: position not finite
  // The physics modules' fields (their stages come after the corrector's):
  kBadMetals = 1u << 11,  // X_H, O or Fe mass fraction not finite or outside [0, 1] (cooling,
                          // enrichment by feedback, phase changes)
  kBadStar = 1u << 12,    // a star's birth time not finite, or initial mass not finite or < 0
                          // (star formation; 0 marks a star without an SSP)
  kBadSpin = 1u << 13,    // a sink's spin not finite (sinks)
};
constexpr int kHealthBits = 14;

// x - x is 0 for every finite x and NaN for inf and NaN (IEEE 754; no fast-math anywhere in the
// build), the same on host and device without relying on a host/device isfinite.
MPSPH_HD bool is_finite(double x) {
  return x - x == 0.0;
}
MPSPH_HD bool is_finite(float x) {
  return x - x == 0.0f;
}
MPSPH_HD bool finite3(const Vec3d& v) {
  return is_finite(v.x) && is_finite(v.y) && is_finite(v.z);
}

// A mass fraction: finite and in [0, 1] (NaN fails both comparisons).
MPSPH_HD bool mass_fraction_ok(double x) {
  return x >= 0.0 && x <= 1.0;
}

MPSPH_HD uint32_t particle_health(const ParticleView& p, std::size_t i) {
  const uint8_t type = p.type[i];
  if (type >= kNumTypes) return 0;  // kRemoved
  uint32_t bad = 0;
  if (type == kGas) {
    const float h = p.h[i], rho = p.rho[i];
    if (!(is_finite(h) && h > FLT_MIN)) bad |= kBadH;
    if (!(is_finite(rho) && rho > 0.0f)) bad |= kBadRho;
    if (!(is_finite(p.divv[i]) && is_finite(p.curlv[i]))) bad |= kBadDivV;
    if (!(is_finite(p.pressure[i]) && p.pressure[i] >= 0.0f && is_finite(p.csound[i]) &&
          p.csound[i] >= 0.0f))
      bad |= kBadPressure;
    if (!is_finite(p.dudt[i])) bad |= kBadDuDt;
    if (!(is_finite(p.u[i]) && p.u[i] >= 0.0)) bad |= kBadU;
  }
  if (!(finite3(p.acc_grav[i]) && is_finite(p.pot[i]))) bad |= kBadGravity;
  if (!finite3(p.acc[i])) bad |= kBadAcc;
  if (!(is_finite(p.mass[i]) && p.mass[i] > 0.0)) bad |= kBadMass;
  if (!finite3(p.vel[i])) bad |= kBadVel;
  if (!finite3(p.pos[i])) bad |= kBadPos;
  // The optional field groups are checked where the view holds them (a GPU run leaves a group
  // off the device when no module uses it and its value is the same for every particle).
  if (p.x_h &&
      !(mass_fraction_ok(p.x_h[i]) && mass_fraction_ok(p.z_o[i]) && mass_fraction_ok(p.z_fe[i])))
    bad |= kBadMetals;
  if (p.birth_time && (type == kOldStar || type == kNewStar) &&
      !(is_finite(p.birth_time[i]) && is_finite(p.initial_mass[i]) && p.initial_mass[i] >= 0.0))
    bad |= kBadStar;
  if (p.spin && type == kSink && !finite3(p.spin[i])) bad |= kBadSpin;
  return bad;
}

}  // namespace mpsph
