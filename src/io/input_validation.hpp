// Physical validity of the particles a run starts from (issue #17): initial conditions read from an
// HDF5 file, and the particles of a checkpoint. The readers check the files' structure (groups,
// shapes, types, counts); these checks are about the values. Every problem is an mpsph::Error that
// names the file, the dataset and the first offending particle (its row in the dataset and its id).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// What the run needs of its particles.
struct ParticleRules {
  long n_neighbours = 0;              // N_B: a run with gas needs at least N_B + 1 gas particles
  bool needs_internal_energy = true;  // gas u must be given and > 0 (adiabatic EOS)
  std::array<bool, kNumTypes> handled{};  // the particle types the run evolves
};

// Initial conditions read by read_snapshot() from `path` (sorted by type, file order within a
// type); `datasets` are the particle datasets the file held (SnapshotMeta::datasets). Errors: no
// particles; a type the run does not handle; gas without InternalEnergy (when needed) or with
// u <= 0 (u < 0 when not needed); SmoothingLength, when given, <= 0; fewer than N_B + 1 gas
// particles; two particles with one id; two particles at one position (found by sorting,
// O(N log N)); a position outside a periodic box.
void validate_initial_conditions(const ParticleStore& s, const Box& box, const ParticleRules& rules,
                                 const std::string& path, const std::vector<std::string>& datasets);

// Its checks of each particle alone, on a part of the file's particles (initial conditions read
// across ranks; a particle is named by its id): the gas count and the uniqueness of ids and
// positions need every part (check_gas_count below, and Ranks::repeated in the driver).
void validate_initial_conditions_part(const ParticleStore& s, const Box& box,
                                      const ParticleRules& rules, const std::string& path,
                                      const std::vector<std::string>& datasets);

// The particles of checkpoint `path` in store order, as read_checkpoint() returns them. Errors:
// NaN or inf in any stored floating-point value; mass <= 0 (particles removed since the last order
// stage excepted); gas u < 0 or h <= 0; a type the run does not handle; fewer than N_B + 1 gas
// particles; two particles with one id. Particles may share a position here: a spawned particle
// starts where its parent is.
void validate_checkpoint_particles(const ParticleStore& s, const ParticleRules& rules,
                                   const std::string& path);
// Its checks of each particle alone, on a part of the checkpoint's particles (a restart across
// ranks; a particle is named by its id): the gas count and the ids' uniqueness need every part
// (check_gas_count below, and Ranks::repeated).
void validate_checkpoint_part(const ParticleStore& s, const ParticleRules& rules,
                              const std::string& path);
// Fewer than N_B + 1 gas particles in all (and some): an error.
void check_gas_count(std::size_t n_gas, const ParticleRules& rules, const std::string& ctx);

}  // namespace mpsph
