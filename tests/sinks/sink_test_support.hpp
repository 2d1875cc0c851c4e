// Totals of the sink tests: mass, linear momentum and angular momentum (orbital + sink spin)
// about the origin, with the sums of their magnitudes as the scales of relative errors.
#pragma once

#include <cstddef>

#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph::test {

struct SinkTotals {
  double mass = 0, pabs = 0, labs = 0;
  Vec3d p{0, 0, 0}, l{0, 0, 0};
};

inline SinkTotals sink_totals(const ParticleStore& s) {
  SinkTotals t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    t.mass += s.mass[i];
    t.p += s.mass[i] * s.vel[i];
    t.pabs += s.mass[i] * norm(s.vel[i]);
    const Vec3d l = s.mass[i] * cross(s.pos[i], s.vel[i]) + s.spin[i];
    t.l += l;
    t.labs += norm(l);
  }
  return t;
}

}  // namespace mpsph::test
