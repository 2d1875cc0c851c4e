// Creating one particle from a spawn request (particle_changes.hpp), shared by the CPU loop and
// the CUDA kernel so that both backends make bit-identical children.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// Every field of the table that the view holds (a GPU run may leave optional field groups off the
// device: core/device_particles.hpp): p[to] = p[from].
MPSPH_HD void copy_particle(const ParticleView& p, std::size_t from, std::size_t to) {
#define MPSPH_COPY_FIELD(name, ...) \
  if (p.name) p.name[to] = p.name[from];
  MPSPH_PARTICLE_FIELDS(MPSPH_COPY_FIELD)
#undef MPSPH_COPY_FIELD
}

// Parent `i`, child `c` (a copy of the parent): the child gets the requested type and mass and
// its id; the parent gives up that mass; both requests are cleared.
MPSPH_HD void finish_spawn(const ParticleView& p, std::size_t i, std::size_t c, uint64_t id) {
  const double m_child = p.spawn_mass[i];
  p.type[c] = p.spawn_type[i];
  p.mass[c] = m_child;
  p.id[c] = id;
  p.spawn_mass[c] = 0.0;
  p.spawn_type[c] = 0;
  p.mass[i] -= m_child;
  p.spawn_mass[i] = 0.0;
  p.spawn_type[i] = 0;
}

}  // namespace mpsph
