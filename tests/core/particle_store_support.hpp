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
  p.append(s, b, e);
  return p;
}

}  // namespace mpsph::test
