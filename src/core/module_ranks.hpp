// What a physics module's stage may ask of the other MPI ranks of `mpsph-mpi` (StageArgs::ranks;
// null on one process). This header includes no MPI: the rank backend implements it
// (parallel/module_ranks_mpi.hpp).
//
// The way across ranks for a module whose interactions gather around few centres (sinks: the gas
// within h_acc of a sink or of a gas particle that may become one): every rank names its
// particles that take part - the centres and what lies within the reach of any rank's centre
// (particles_near) - and run_on_root() runs the module's one-process stage once, on rank 0, on a
// work store of exactly those particles, then writes every one back over its original on its
// owner. The stage then sees everything it reads and writes, so it gives what one process gives
// (with the particles of each rank in store order and the ranks in rank order: the same sums in
// the same order when the ranks hold consecutive blocks of one process's store order,
// tests/parallel/module_ranks_mpi.cpp). It costs a gather of the taking part to one rank per stage,
// which suits interactions of a few thousand centres, not of every particle.
//
// The way for a module whose every particle of a type reaches a few neighbours (feedback: every
// star its N_B nearest gas particles): each rank fetches copies of the remote particles within a
// radius of its own centres (fetch), computes what its particles give to them, and sends those
// contributions to the owners (send_to_owners), which apply every contribution to each of their
// particles - local and remote ones - in one process's order of the givers (order_key).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/particles_near.hpp"
#include "core/physics_module.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// Copies of remote particles (ModuleRanks::fetch), every field, and where each one lives.
struct Ghosts {
  ParticleStore particles;
  std::vector<int> owner;       // its rank
  std::vector<uint32_t> index;  // its store index there
};

class ModuleRanks {
 public:
  virtual ~ModuleRanks() = default;
  // This rank's index (0 ... number of ranks - 1).
  virtual int rank() const = 0;
  // The largest of every rank's `local`, and their sum (collective).
  virtual double max(double local) const = 0;
  virtual double sum(double local) const = 0;
  // Element-wise minima of every rank's `v` (the same size on every rank; collective).
  virtual void min(std::vector<double>& v) const = 0;
  // Every rank's `local` points or values, rank 0's first (collective).
  virtual std::vector<Vec3d> gather_points(const std::vector<Vec3d>& local) const = 0;
  virtual std::vector<double> gather_values(const std::vector<double>& local) const = 0;
  // Runs `stage` on rank 0 alone with a work store of every rank's `members` (ascending store
  // indices of `local.p`, every field), sorted by type (stably: rank 0's members first, each rank's
  // in store order), then copies every work particle's fields back over its original (collective).
  // The stage's StageArgs are `local`'s with the work store's view, its type ranges, the active set
  // of the work store at local.active's tick (all when local.active is all) and ranks null: the
  // one-process code runs there unchanged. It may change types and mark particles removed (the
  // next order stage sorts, drops and counts them) and change any field of the work particles.
  virtual void run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                           const std::function<void(const StageArgs&)>& stage) const = 0;
  // The order key of this rank's particle i: one process holds each type in (key, id) order
  // (the key of core/sfc_key.hpp, in the run's key cube, of the last order stage).
  virtual uint64_t order_key(std::size_t i) const = 0;
  // Copies of every other rank's particles of `type` (in the gas range [0, n_gas) for gas)
  // within radius[c] of any of this rank's centres[c] (nearest image), each once, by owner rank
  // then owner store index (collective). `fields`: the members (core/particle_fields.hpp) to copy,
  // the others zero (empty: every field).
  virtual Ghosts fetch(const ParticleView& local, const Box& box, const std::vector<Vec3d>& centres,
                       const std::vector<double>& radius, uint8_t type,
                       const std::vector<std::string>& fields = {}) const = 0;
  // Records for remote particles back to their owners (collective): record k of `records`
  // (record_bytes each) is for ghost ghost_of[k] of `g`. Returns the records that came for this
  // rank's particles, by source rank then in their order there, with each one's store index in
  // `index`.
  virtual std::vector<unsigned char> send_to_owners(const Ghosts& g,
                                                    const std::vector<uint32_t>& ghost_of,
                                                    const std::vector<unsigned char>& records,
                                                    std::size_t record_bytes,
                                                    std::vector<uint32_t>& index) const = 0;
};

}  // namespace mpsph
