// Shared by the CPU and GPU particle-change tests: a mixed store (gas, dark matter, clouds, one
// sink) and rounds of the changes physics stages make - gas turns into clouds, clouds spawn stars,
// the sink swallows gas - with the totals the order stage must conserve.
#pragma once

#include <cmath>
#include <cstdint>
#include <set>

#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "run/step_backend.hpp"

namespace mpsph::test {

inline ParticleStore mixed_store(std::size_t n) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t id = 1000 + 7 * i;  // not 1..N: created ids must continue after the largest
    auto r = [&](uint32_t k) { return random_uniform(id, 0, kStreamSetup, k); };
    s.id[i] = id;
    s.pos[i] = {r(0), r(1), r(2)};
    s.vel[i] = {r(3) - 0.5, r(4) - 0.5, r(5) - 0.5};
    s.mass[i] = 0.5 + r(6);
    const double t = r(7);
    s.type[i] = t < 0.6 ? kGas : t < 0.8 ? kDarkMatter : kCloud;
    s.u[i] = 1.0 + r(8);
    s.h[i] = 0.1f;
    s.z_fe[i] = 0.001 * r(9);
  }
  s.type[n / 2] = kSink;
  s.sort_by_type();
  return s;
}

struct Totals {
  double mass = 0;
  Vec3d momentum{0, 0, 0};
  double fe = 0;  // iron mass
};

inline Totals totals(const ParticleStore& s) {
  Totals t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    t.mass += s.mass[i];
    t.momentum += s.mass[i] * s.vel[i];
    t.fe += s.mass[i] * s.z_fe[i];
  }
  return t;
}

// One round of changes in place, decided by the counter-based RNG from (id, round) so that it does
// not depend on the order of the particles: 5% of the gas becomes clouds, 10% of the clouds ask for
// a star of a quarter of their mass, 3% of the gas is swallowed by the sink (mass and momentum go
// to the sink, the particle is marked removed with mass 0).
inline void change_particles(ParticleStore& s, uint64_t round) {
  std::size_t sink = s.size();
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.type[i] == kSink) sink = i;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double r = random_uniform(s.id[i], round, kStreamSetup, 11);
    if (s.type[i] == kGas && r < 0.05) {
      s.type[i] = kCloud;
    } else if (s.type[i] == kCloud && r >= 0.05 && r < 0.15) {
      s.spawn_mass[i] = 0.25 * s.mass[i];
      s.spawn_type[i] = kNewStar;
    } else if (s.type[i] == kGas && r >= 0.2 && r < 0.23 && sink < s.size()) {
      const double m = s.mass[i], ms = s.mass[sink];
      s.vel[sink] = (1.0 / (ms + m)) * (ms * s.vel[sink] + m * s.vel[i]);
      s.z_fe[sink] = (ms * s.z_fe[sink] + m * s.z_fe[i]) / (ms + m);
      s.mass[sink] = ms + m;
      s.mass[i] = 0.0;
      s.type[i] = kRemoved;
    }
  }
}

inline double rel(double a, double b) {
  return std::fabs(a - b) / std::max(std::fabs(b), 1e-300);
}

}  // namespace mpsph::test
