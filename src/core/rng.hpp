// Counter-based random numbers (no global state): a value is a pure function of
// (particle id, step, stream, draw index), so CPU and GPU draw identical numbers in any thread
// order and a restarted run draws what the uninterrupted run drew. The mixer is SplitMix64's
// finaliser (Steele, Lea & Flood 2014) applied to a combination of the counters.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"

namespace mpsph {

MPSPH_HD uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 64 random bits for (id, step, stream, draw).
MPSPH_HD uint64_t random_bits(uint64_t id, uint64_t step, uint32_t stream, uint32_t draw = 0) {
  uint64_t h = splitmix64(id);
  h = splitmix64(h ^ step);
  h = splitmix64(h ^ ((uint64_t(stream) << 32) | draw));
  return h;
}

// Uniform double in [0, 1) with 53 random bits.
MPSPH_HD double random_uniform(uint64_t id, uint64_t step, uint32_t stream, uint32_t draw = 0) {
  return double(random_bits(id, step, stream, draw) >> 11) * (1.0 / 9007199254740992.0);
}

// Named streams so that two uses never share numbers.
enum RandomStream : uint32_t {
  kStreamSetup = 1,
  kStreamStarFormation = 2,
  kStreamFeedback = 3,
  kStreamCloudCollision = 4,
};

}  // namespace mpsph
