// The processes a run is spread over: one (`mpsph`), or the MPI ranks of `mpsph-mpi`
// (run/mpi/mpi_ranks.hpp, docs/mpi.md). The simulation driver does its work on every rank and its
// file output on rank 0 only; what only rank 0 has (the initial conditions, the checkpoint read
// at a restart) reaches the other ranks through these calls. This header includes no MPI: the
// single-process program is built without it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/error.hpp"
#include "core/particle_store.hpp"
#include "core/physics_module.hpp"
#include "run/device.hpp"
#include "run/mpi_params.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

struct CheckpointState;

// A feature the run asks for that does not work across ranks yet (gravity by direct summation or
// in a periodic box, a physics module that does not run across ranks); the CLI exits with code 2,
// as for a usage error.
struct NotAcrossRanks : Error {
  using Error::Error;
};

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }
  // More than one rank: the run uses the ranks' backend and gathers its files on rank 0. One MPI
  // rank runs exactly as the single process.
  virtual bool distributed() const = 0;

  // Rank 0's text on every rank (collective).
  virtual void broadcast(std::string& text) const = 0;
  // True on every rank when `flag` is true on any (collective).
  virtual bool any(bool flag) const = 0;
  // The backend of the ranks (collective), CPU or GPU ranks (`requested`); NotAcrossRanks on every
  // rank for what it cannot run: a module that does not run across ranks
  // (PhysicsModule::runs_across_ranks), and what its stepper refuses.
  virtual std::unique_ptr<StepBackend> make_backend(
      const StepContext& ctx, Device requested,
      const std::vector<std::unique_ptr<PhysicsModule>>& modules, const MpiParams& mpi) const = 0;
  // Every rank's particles on rank 0, sorted by id (empty on the other ranks; collective).
  virtual ParticleStore gather(const ParticleStore& local) const = 0;
  // Every rank's `local` (the same length on every rank) in rank order, on every rank
  // (collective).
  virtual std::vector<uint64_t> all_gather(const std::vector<uint64_t>& local) const = 0;
  // The smallest item (in the order of its words) that occurs more than once in every rank's
  // `words` together, items of `k` words each, if any (the same on every rank; collective): the
  // ids' or the positions' uniqueness over the ranks without gathering them (each item goes to
  // one rank by a hash of its words).
  virtual std::optional<std::vector<uint64_t>> repeated(std::vector<uint64_t> words,
                                                        std::size_t k) const = 0;
};

// repeated() of one process's items.
std::optional<std::vector<uint64_t>> repeated_item(const std::vector<uint64_t>& words,
                                                   std::size_t k);
// The rank of an item among P: a hash of its k words, mod P.
std::size_t item_rank(const uint64_t* item, std::size_t k, std::size_t P);

// The single process: no other ranks, broadcasts and reductions are the identity.
const Ranks& one_process();

// Rank 0's checkpoint state on every rank, exactly (doubles as hexadecimal floating point).
void broadcast_checkpoint_state(const Ranks& ranks, CheckpointState& state);
// Rank 0's box and initial time on every rank, exactly.
void broadcast_box_and_time(const Ranks& ranks, Box& box, double& time);

}  // namespace mpsph
