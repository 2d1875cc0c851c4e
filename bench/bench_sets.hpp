// Particle sets shared by the SPH benchmarks (CPU and GPU).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/particle_store.hpp"
#include "core/rng.hpp"

namespace mpsph::bench {

// n^3 lattice points in the unit box, each moved by up to 0.3 spacings per axis, with random
// velocities in [-0.5, 0.5) and u = 1; counter-based random numbers, so every run gets the same
// set.
inline ParticleStore glass_like(int n) {
  const std::size_t total = std::size_t(n) * n * n;
  const double a = 1.0 / n;
  ParticleStore s;
  s.resize(total);
  std::size_t i = 0;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z, ++i) {
        auto jitter = [&](uint32_t d) {
          return 0.6 * a * (random_uniform(i, 7, kStreamSetup, d) - 0.5);
        };
        s.pos[i] = {(x + 0.5) * a + jitter(0), (y + 0.5) * a + jitter(1),
                    (z + 0.5) * a + jitter(2)};
        s.vel[i] = {random_uniform(i, 7, kStreamSetup, 3) - 0.5,
                    random_uniform(i, 7, kStreamSetup, 4) - 0.5,
                    random_uniform(i, 7, kStreamSetup, 5) - 0.5};
        s.mass[i] = 1.0 / double(total);
        s.u[i] = 1.0;
        s.id[i] = i;
        s.type[i] = kGas;
      }
  return s;
}

}  // namespace mpsph::bench
