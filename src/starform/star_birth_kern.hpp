// What every model does when a star is born (PHYSICS.md section 6), shared by the CPU loops and
// the CUDA kernels: the formation probability of a step, the star's birth record (BirthTime,
// InitialMass, Metallicity) and the two ways a star comes into the store.
//   - In place: a gas particle or a cloud becomes the star (type 4) with all its mass, position,
//     velocity and metals (katz, probabilistic); its record is written at once.
//   - Spawned: a cloud asks the order stage for a child star of part of its mass (clouds; the
//     child is a copy of the parent, run/particle_changes.hpp). The child appears at the next
//     order stage with InitialMass 0, which marks it: the next star-formation stage writes its
//     record, with the time of the stage that decided it. (A record written on the parent would
//     not survive a checkpoint taken between the decision and the order stage: the star fields
//     are kept for types 3 and 4 only.)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"

namespace mpsph {

// Solar photospheric mass fractions of Asplund, Grevesse, Sauval & Scott (2009, ARA&A 47, 481,
// table 4 and log eps_O = 8.69, log eps_Fe = 7.50 with X = 0.7381): total metals Z, oxygen, iron.
constexpr double kSolarZ = 0.0134;
constexpr double kSolarO = 5.79e-3;
constexpr double kSolarFe = 1.30e-3;

// The star's total metal mass fraction from the two metals the gas carries: O and Fe, scaled to
// all metals with the solar ratio Z / (X_O + X_Fe) = 1.89 (oxygen carries ~43% of the solar
// metal mass and follows SN II enrichment as the other alpha elements do).
MPSPH_HD double birth_metallicity(double z_o, double z_fe) {
  return (z_o + z_fe) * (kSolarZ / (kSolarO + kSolarFe));
}

// Probability that an event of rate `rate_dt` per step (rate x dt) happened in the step:
// 1 - exp(-rate_dt), accurate for small rate_dt.
MPSPH_HD double event_probability(double rate_dt) {
  return -std::expm1(-rate_dt);
}

// Whether particle i forms a star in (sub)step `step` with probability `prob`: one uniform number
// of the star-formation stream keyed by (id, step), so both backends decide alike in any thread
// order and a restarted run decides as the uninterrupted run did.
MPSPH_HD bool star_formation_draw(const ParticleView& s, std::size_t i, long step, double prob) {
  return random_uniform(s.id[i], uint64_t(step), kStreamStarFormation) < prob;
}

// The birth record of star i born at `time`: its mass now, the metals it carries.
MPSPH_HD void write_birth_record(const ParticleView& s, std::size_t i, double time) {
  s.birth_time[i] = time;
  s.initial_mass[i] = s.mass[i];
  s.birth_z[i] = birth_metallicity(s.z_o[i], s.z_fe[i]);
}

// Gas particle or cloud i becomes a star in place at `time` with everything it has. Its thermal
// energy m u leaves the gas: u, u0, dudt0 and dudt are zeroed (as for warm -> cold), so neither
// the corrector nor another stage gives it thermal energy again. Returns that energy.
MPSPH_HD double turn_into_star(const ParticleView& s, std::size_t i, double time, double u_end) {
  const double thermal = s.type[i] == kGas ? s.mass[i] * u_end : 0.0;
  s.type[i] = kNewStar;
  if (i < s.n_gas) {
    s.u[i] = 0.0;
    s.u0[i] = 0.0;
    s.dudt0[i] = 0.0;
    s.dudt[i] = 0.0;
  }
  write_birth_record(s, i, time);
  return thermal;
}

// Cloud i asks for a child star of mass m_star (the order stage appends it, a copy of the cloud:
// position, velocity, metals). InitialMass 0 on the parent passes to the child and marks it for
// finish_spawned_star().
MPSPH_HD void request_star(const ParticleView& s, std::size_t i, double m_star) {
  s.spawn_mass[i] = m_star;
  s.spawn_type[i] = kNewStar;
  s.initial_mass[i] = 0.0;
}

// Star i of the store: a child made by the order stage since the last star-formation stage
// (InitialMass 0) gets its record, born at `decided_at` (the time of the stage that asked for
// it). Returns whether it was such a child.
MPSPH_HD bool finish_spawned_star(const ParticleView& s, std::size_t i, double decided_at) {
  if (s.type[i] != kNewStar || s.initial_mass[i] != 0.0) return false;
  write_birth_record(s, i, decided_at);
  return true;
}

// Stellar mass formed that particle i stands for [code mass]: a star of type 4 its initial mass
// (its mass while its record is still to be written), a pending request for a star its mass.
MPSPH_HD double formed_stellar_mass(const ParticleView& s, std::size_t i) {
  double m = 0.0;
  if (s.type[i] == kNewStar) m += s.initial_mass[i] > 0.0 ? s.initial_mass[i] : s.mass[i];
  if (s.spawn_mass[i] > 0.0 && s.spawn_type[i] == kNewStar) m += s.spawn_mass[i];
  return m;
}

}  // namespace mpsph
