// The conserved sums of a cold-phase run (mass, O and Fe mass, linear momentum) and the particle
// counts, for the conservation checks of the CPU validation runs and the GPU backend test.
#pragma once

#include <cstddef>

#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph::test {

struct ConservedTotals {
  double mass = 0, fe = 0, o = 0;
  Vec3d p{0, 0, 0};
  double p_scale = 0;  // sum m |v|: the scale of the momentum's round-off
  std::size_t gas = 0, clouds = 0;
};

// Sums over the live particles of `s` (kRemoved ones skipped), or over those of type `only`.
inline ConservedTotals conserved_totals(const ParticleStore& s, int only = -1) {
  ConservedTotals t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] == kRemoved || (only >= 0 && s.type[i] != only)) continue;
    t.gas += s.type[i] == kGas;
    t.clouds += s.type[i] == kCloud;
    t.mass += s.mass[i];
    t.fe += s.mass[i] * s.z_fe[i];
    t.o += s.mass[i] * s.z_o[i];
    t.p += s.mass[i] * s.vel[i];
    t.p_scale += s.mass[i] * norm(s.vel[i]);
  }
  return t;
}

}  // namespace mpsph::test
