// The sink-merging run of the validation and GPU tests: the isothermal Evrard sphere of the sink
// tests (400 particles) with two sinks given in the initial conditions, falling towards each
// other off-axis, so that they meet as a bound pair and merge (carrying orbital angular momentum
// into the survivor's spin). The initial conditions go through a snapshot file (setup.type file).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/particle_store.hpp"
#include "io/snapshot.hpp"
#include "run/program_schema.hpp"
#include "setups/initial_conditions.hpp"
#include "sinks/sink_kern.hpp"
#include "sinks/sink_test_support.hpp"

namespace mpsph::test {

// The run's config without its setup section (t_end 0.4: the two sinks merge at t ~ 0.2, before
// the gas forms a sink of its own at t ~ 0.45).
inline std::string sink_merge_config() {
  return "run: {t_end: 0.4, diagnostics_every: 1, snapshot_times: [0.4]}\n"
         "timestep: {scheme: global, courant: 0.1}\n" +
         sink_sphere_sections();
}

// Ids of the two sinks of the initial conditions.
constexpr uint64_t kMergeSinkA = 1000001, kMergeSinkB = 1000002;

// Writes the initial conditions to `path`: the sphere, with two gas particles turned into sinks of
// mass 0.05 at (+-0.1, +-0.01, 0) moving at -+0.1 along x (the sphere's
// pull near its centre, G M(r) / r^2 = 1, brings them together at a relative speed ~0.8, below
// the escape speed of the pair at r = 0.05).
inline void write_sink_merge_ics(const std::string& path) {
  const Config cfg =
      Config::from_string(sink_merge_config() + "setup: {type: evrard, n_particles: 400}\n",
                          "ics.yaml", program_schema());
  InitialState init = make_initial_state(cfg);
  ParticleStore& s = init.particles;
  const Vec3d at[2] = {{0.1, 0.01, 0.0}, {-0.1, -0.01, 0.0}};
  for (int k = 0; k < 2; ++k) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s.type[i] == kGas && norm2(s.pos[i] - at[k]) < norm2(s.pos[best] - at[k])) best = i;
    s.type[best] = kSink;
    s.id[best] = k ? kMergeSinkB : kMergeSinkA;
    s.mass[best] = 0.05;
    s.pos[best] = at[k];
    s.vel[best] = Vec3d{k ? 0.1 : -0.1, 0.0, 0.0};
    s.spin[best] = Vec3d{0, 0, 0};
    s.accreted_mass[best] = 0.0;
    s.formation_time[best] = 0.0;
  }
  // The file needs positive smoothing lengths (the first step computes them anew).
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.type[i] == kGas) s.h[i] = 0.1f, s.rho[i] = 1.0f;
  s.sort_by_type();
  SnapshotMeta meta;
  write_snapshot(path, s, meta);
}

// The yaml of the run, reading its initial conditions from `ics`.
inline std::string sink_merge_yaml(const std::string& ics) {
  return sink_merge_config() + "setup: {type: file, path: \"" + ics + "\"}\n";
}

}  // namespace mpsph::test
