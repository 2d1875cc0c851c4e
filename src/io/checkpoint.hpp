// Checkpoints: the complete state of a run, so that a restarted run continues bit-for-bit.
//
// Every field of the field table with Persistence::Kept is stored in its native type (Vec3d as
// N x 3 doubles), one array per field under /Particles/<member name>, holding in store order the
// particles whose type carries the field (its TypeMask: all particles for AllTypes, the gas for
// GasOnly, ...); the driver's scalars, counters (step, RNG counters, ...) and resolved
// config are stored beside them. The layout is in docs/file_format.md. Files are written to
// "<path>.tmp" and renamed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/particle_store.hpp"

namespace mpsph {

struct CheckpointState {
  double time = 0.0;
  double dt = 0.0;
  long step = 0;
  long next_snapshot = 0;
  std::map<std::string, double> scalars;  // e.g. radiated energy, t_start
  std::map<std::string, long> counters;   // e.g. RNG stream counters
  std::string config_yaml;                // resolved config of the run
};

// Format version written to and required from the "mpsph_checkpoint_version" root attribute.
constexpr int kCheckpointVersion = 2;

// Throws mpsph::Error "cannot write checkpoint '<path>': <reason>".
void write_checkpoint(const std::string& path, const ParticleStore& store,
                      const CheckpointState& state);

// A checkpoint written by several processes in turn, each its own particles, as a snapshot's parts
// (io/snapshot.hpp SnapshotPart; committed by commit_parts): `total` particles in the file, this
// part's `first`; for each kept field (in checkpoint_field_rows' order) the file's rows and this
// part's first row (a field of some types only has a row per particle of those types).
struct CheckpointPart {
  uint64_t total = 0, first = 0;
  std::vector<uint64_t> field_total, field_first;
  bool creates = false;
};
// The rows of each kept field of `store` (its particles carrying the field), or of particles of
// these types.
std::vector<uint64_t> checkpoint_field_rows(const ParticleStore& store);
std::vector<uint64_t> checkpoint_field_rows(const std::vector<uint8_t>& types);
void write_checkpoint_part(const std::string& path, const ParticleStore& store,
                           const CheckpointState& state, const CheckpointPart& part);

// Throws mpsph::Error naming the file and the problem: missing file, not HDF5 or truncated, not a
// checkpoint / other version, a missing or mis-typed dataset.
ParticleStore read_checkpoint(const std::string& path, CheckpointState* state_out);

// A checkpoint read in parts, each process a range of its particles (a restart across MPI ranks:
// no process holds them all): the particle count (NumParticles, checked); the types of particles
// [first, first + count); then, with a CheckpointPart whose field rows come from every part's
// types (checkpoint_field_rows summed over the parts before this one, and over all), the part's
// particles with every kept field, in file order. read_checkpoint is the one part of them all.
uint64_t checkpoint_particles(const std::string& path);
std::vector<uint8_t> read_checkpoint_types(const std::string& path, uint64_t first, uint64_t count);
ParticleStore read_checkpoint_part(const std::string& path, const CheckpointPart& part,
                                   std::vector<uint8_t> types, CheckpointState* state_out);

}  // namespace mpsph
