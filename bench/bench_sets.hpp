// Particle sets shared by the SPH benchmarks (CPU and GPU), and the key cubes of the SPH-order
// benchmarks (bench_resident_sph_gpu on the GPU, bench_sph_order on the CPU: the same cubes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/box.hpp"
#include "core/config.hpp"
#include "core/morton.hpp"
#include "core/particle_store.hpp"
#include "core/position_bounds.hpp"
#include "core/rng.hpp"
#include "run/program_schema.hpp"
#include "setups/initial_conditions.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"

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

struct DiskGas {
  ParticleStore gas;     // the gas, in the setup's order
  ParticleStore others;  // the setup's other particles (the disk's halo reaches 300 kpc)
  Box box;
  SphParams sph;  // the setup's (N_B = 50)
  EosParams eos;
};

// setups/isolated_disk.yaml's model with n_gas gas particles and 2 100 of the other types, at
// t = 0. Run from the repository root.
inline DiskGas disk_gas(long n_gas) {
  const Config cfg = Config::from_file("setups/isolated_disk.yaml", program_schema(),
                                       {"setup.gas.n=" + std::to_string(n_gas), "setup.halo.n=1000",
                                        "setup.disk.n=1000", "setup.bulge.n=100"});
  InitialState st = make_initial_state(cfg);
  DiskGas g;
  g.box = st.box;
  g.sph = sph_params_from(cfg);
  g.eos = eos_params_from(cfg);
  std::size_t n = 0;  // the gas comes first
  while (n < st.particles.size() && st.particles.type[n] == 0) ++n;
  g.gas.append(st.particles, 0, n);
  g.others.append(st.particles, n, st.particles.size());
  return g;
}

// The bounding cube of the positions of `sets`.
inline KeyCube bounding_cube(std::initializer_list<const ParticleStore*> sets) {
  Vec3d lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  for (const ParticleStore* s : sets) {
    const PositionBounds b = position_bounds(s->pos.data(), s->size());
    lo = {std::min(lo.x, b.lo.x), std::min(lo.y, b.lo.y), std::min(lo.z, b.lo.z)};
    hi = {std::max(hi.x, b.hi.x), std::max(hi.y, b.hi.y), std::max(hi.z, b.hi.z)};
  }
  return {lo, std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z})};
}

// The frames compared: the gas's bounding cube; the cube of all the setup's particles (the
// run's, which one GPU and the ranks order in); a cube of that edge centred on the galaxy's
// centre, and the same 0.37 length units off.
struct DiskFrames {
  KeyCube gas, run, centred, off_centre;
};
inline DiskFrames disk_frames(const ParticleStore& gas, const ParticleStore& others) {
  DiskFrames f;
  f.gas = bounding_cube({&gas});
  f.run = bounding_cube({&gas, &others});
  const double half = 0.5 * f.run.edge;
  f.centred = {{-half, -half, -half}, f.run.edge};
  f.off_centre = {{-half + 0.37, -half + 0.37, -half + 0.37}, f.run.edge};
  return f;
}

}  // namespace mpsph::bench
