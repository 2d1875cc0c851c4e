// Per-particle terms of the conserved quantities (run/diagnostics.hpp), shared by the CPU
// reduction and the GPU step reduction. All sums in double.
#pragma once

#include <cstddef>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct ConservedSums {
  double kinetic, thermal, potential, mass;  // sum 1/2 m v^2, sum m u (gas), 1/2 sum m phi, sum m
  double px, py, pz;                         // sum m v
  double lx, ly, lz;                         // sum m x cross v + sink spin (about the origin)
};

MPSPH_HD ConservedSums zero_conserved_sums() {
  return ConservedSums{0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
}

MPSPH_HD void add_particle(ConservedSums& a, const ParticleView& s, std::size_t i,
                           bool with_potential) {
  const double m = s.mass[i];
  const Vec3d& v = s.vel[i];
  // Orbital plus the spin a sink keeps of the gas it accreted (zero for every other particle; a
  // GPU run without sinks does not hold the field on the device).
  const Vec3d L = m * cross(s.pos[i], v) + (s.spin ? s.spin[i] : Vec3d{0.0, 0.0, 0.0});
  a.kinetic += 0.5 * m * norm2(v);
  // By type, not by index: a stage may have changed a type since the last order stage.
  if (s.type[i] == kGas) a.thermal += m * s.u[i];
  if (with_potential) a.potential += 0.5 * m * s.pot[i];
  a.mass += m;
  a.px += m * v.x, a.py += m * v.y, a.pz += m * v.z;
  a.lx += L.x, a.ly += L.y, a.lz += L.z;
}

MPSPH_HD void add_sums(ConservedSums& a, const ConservedSums& b) {
  a.kinetic += b.kinetic, a.thermal += b.thermal, a.potential += b.potential, a.mass += b.mass;
  a.px += b.px, a.py += b.py, a.pz += b.pz;
  a.lx += b.lx, a.ly += b.ly, a.lz += b.lz;
}

}  // namespace mpsph
