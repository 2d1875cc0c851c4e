// Conserved quantities of the whole system, summed in double: kinetic, thermal and potential
// energy, linear and angular momentum (about the origin).
#pragma once

#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct Conserved {
  double kinetic = 0;    // sum 1/2 m v^2
  double thermal = 0;    // sum m u (gas)
  double potential = 0;  // 1/2 sum m phi (self-gravity)
  double radiated = 0;   // energy removed by cooling so far (added back in total())
  Vec3d momentum{0, 0, 0};
  Vec3d angular_momentum{0, 0, 0};
  double mass = 0;

  double total() const { return kinetic + thermal + potential + radiated; }
};

// `with_potential`: include 1/2 sum m phi (false when gravity is off).
Conserved measure_conserved(const ParticleStore& s, bool with_potential);

}  // namespace mpsph
