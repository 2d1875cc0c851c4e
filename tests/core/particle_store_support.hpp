// Tests' helpers for particle stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/particle_store.hpp"

namespace mpsph::test {

// Particles [b, e) of s, every field.
inline ParticleStore store_rows(const ParticleStore& s, std::size_t b, std::size_t e) {
  ParticleStore p;
  std::vector<uint32_t> from(e - b), into(e - b);
  for (std::size_t k = 0; k < e - b; ++k) from[k] = uint32_t(b + k), into[k] = uint32_t(k);
  p.resize(e - b);
  p.copy_particles(s, from, into);
  return p;
}

}  // namespace mpsph::test
