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
  double accounted = 0;  // energy the physics modules took out of the particles so far (the sum of
                         // their energy terms, e.g. radiated by cooling; added back in total())
  Vec3d momentum{0, 0, 0};
  Vec3d angular_momentum{0, 0, 0};
  double mass = 0;

  double total() const { return kinetic + thermal + potential + accounted; }
};

// `with_potential`: include 1/2 sum m phi (false when gravity is off). `accounted` is left 0.
Conserved measure_conserved(const ParticleStore& s, bool with_potential);

}  // namespace mpsph
