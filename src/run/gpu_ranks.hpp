// What the GPU backend asks of the other MPI ranks when it runs as one of several, each with its
// particles on its own GPU for the whole run (the device-resident GPU ranks of `mpsph-mpi`,
// docs/mpi.md "GPU ranks"): the backend keeps its stages on the device (predictor, order sort,
// end force, corrector, criteria, the step's reduction) and hands the stages that cross ranks to
// this interface, which moves only the particles that migrate, the halos' ghosts and the locally
// essential trees through the host. This header includes no MPI and no CUDA: the single-process
// program is built without it being implemented (run/mpi/gpu_rank_link.hpp implements it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/particle_store.hpp"

namespace mpsph {

class DeviceParticles;
class DeviceScratch;
struct KeyCube;
struct StepScalars;

class GpuRanks {
 public:
  virtual ~GpuRanks() = default;

  // Once the run's box is known: mpsph::Error (NotAcrossRanks) for what the ranks cannot run in
  // it (gravity in a periodic box).
  virtual void check_box() = 0;

  // Before the particles go to the device (the initial conditions, or a restart's particles,
  // held by rank 0 or spread anyhow; collective): the first domain decomposition on the host
  // store `s`, which then holds this rank's particles only, so that each rank uploads its own.
  virtual void distribute(ParticleStore& s) = 0;
  // The order stage, before the device sort (collective): the domain decomposition of the rank's
  // particles `d`; the particles owned by other ranks are sent there (all their fields) and
  // marked kRemoved in `d` (the sort puts them last, the backend cuts them off), those received
  // are appended. `type_counts`: the counts of `d` by type (kRemoved at [kNumTypes]), updated.
  virtual void migrate(DeviceParticles& d, std::array<std::size_t, kNumTypes + 1>& type_counts) = 0;
  // The key cube of the order stage's sort after migrate(): the run's cube, in which the
  // decomposition cuts the keys, so that the rank holds its particles in the order one GPU holds
  // them (null: the bounding cube of the rank's own particles). Every frame gives a valid order,
  // but the SPH passes' cost depends on it: measured up to 7% apart on one GPU (docs/mpi.md, "The
  // order of a rank's particles").
  virtual const KeyCube* sort_cube() const = 0;
  // After the sort (collective): what the later stages need on the host (the particle count of
  // gravity's host store; its tree, target boxes and LETs are on the device).
  virtual void after_order(const DeviceParticles& d) = 0;
  // The SPH stages of the rank's gas with the ghosts of the other ranks (collective): h and nngb;
  // then rho, divv, curlv, pressure, csound, balsara, and the hydrodynamic acc, dudt and vsig.
  virtual void smoothing_lengths(DeviceParticles& d) = 0;
  virtual void density_and_forces(DeviceParticles& d) = 0;
  // acc_grav and pot of every particle of `d` from the particles of every rank (collective).
  virtual void gravity(DeviceParticles& d) = 0;
  // The step's reduction over the ranks (collective): dt the minimum, the conserved sums and the
  // energy terms the sums, the health bits and the SPH error word the OR. The counts by type stay
  // the rank's own (they describe its arrays).
  virtual void reduce(StepScalars& s) = 0;
  // Sum and maximum over the ranks (collective).
  virtual uint64_t sum(uint64_t v) const = 0;
  virtual uint64_t max(uint64_t v) const = 0;
  // The optional field groups every rank's device store holds (a migrating particle keeps its
  // fields): `groups` of any rank (those its modules use or whose values differ on it), those
  // uniform on every rank but at different values on two, and all of them when some rank has no
  // particles (its store would not know the uniform values). Collective.
  virtual unsigned common_field_groups(const ParticleStore& s, unsigned groups) const = 0;
  // Device memory of the ranks' own parts (bytes).
  struct Memory {
    std::size_t sph_work = 0;    // the SPH work store: local gas and ghosts
    std::size_t sph_passes = 0;  // its neighbour structure and sort buffers
    std::size_t sph_halos = 0;   // radii, lists, flags, boxes, packed records
    std::size_t gravity = 0;     // the tree solver: octree, sort buffers, copies, stacks, sources
    std::size_t let = 0;         // the LET selection's buffers and messages
    std::size_t transfers = 0;   // the receive buffer of the transfers GPU to GPU
    std::size_t total() const {
      return sph_work + sph_passes + sph_halos + gravity + let + transfers;
    }
  };
  virtual Memory device_memory() const = 0;
  // The backend's shared scratch (core/device_scratch.hpp), lent to the ranks' SPH passes and
  // gravity tree as the one-GPU backend lends it to its own; set before the first stage.
  virtual void lend_scratch(DeviceScratch* scratch) = 0;
  // A restart: acc_grav is a previous evaluation's.
  virtual void assume_previous_gravity() = 0;
  // timing.txt's lines on the stages' parts (collective).
  virtual std::string timing_notes(long steps) = 0;
};

}  // namespace mpsph
