#include "run/particle_changes.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "run/spawn_kern.hpp"

namespace mpsph {

std::size_t spawn_particles(ParticleStore& s, uint64_t& next_id) {
  const std::size_t n = s.size();
  std::size_t children = 0;
  for (std::size_t i = 0; i < n; ++i) children += s.spawn_mass[i] > 0.0;
  if (children == 0) return 0;
  s.resize(n + children);
  ParticleView v = s.view();
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(s.spawn_mass[i] > 0.0)) continue;
    copy_particle(v, i, n + k);
    finish_spawn(v, i, n + k, next_id + k);
    ++k;
  }
  next_id += children;
  return children;
}

uint64_t first_free_id(const ParticleStore& s) {
  uint64_t m = 0;
  for (uint64_t id : s.id) m = std::max(m, id);
  return m + 1;
}

}  // namespace mpsph
