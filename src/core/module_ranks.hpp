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
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/box.hpp"
#include "core/physics_module.hpp"
#include "core/vec3.hpp"

namespace mpsph {

class ModuleRanks {
 public:
  virtual ~ModuleRanks() = default;
  // The largest of every rank's `local`, and their sum (collective).
  virtual double max(double local) const = 0;
  virtual double sum(double local) const = 0;
  // Every rank's `local` points, rank 0's first (collective).
  virtual std::vector<Vec3d> gather_points(const std::vector<Vec3d>& local) const = 0;
  // Runs `stage` on rank 0 alone with a work store of every rank's `members` (ascending store
  // indices of `local.p`, every field), sorted by type (stably: rank 0's members first, each rank's
  // in store order), then copies every work particle's fields back over its original (collective).
  // The stage's StageArgs are `local`'s with the work store's view, its type ranges, the active set
  // of the work store at local.active's tick (all when local.active is all) and ranks null: the
  // one-process code runs there unchanged. It may change types and mark particles removed (the
  // next order stage sorts, drops and counts them) and change any field of the work particles.
  virtual void run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                           const std::function<void(const StageArgs&)>& stage) const = 0;
};

// The particles of p in [begin, end) of type `type` within `radius` of any of `points` (nearest
// image in a periodic box), ascending. A grid of cells at least `radius` wide over the points:
// O((end - begin) + points) for points spread over many cells.
std::vector<uint32_t> particles_near(const ParticleView& p, std::size_t begin, std::size_t end,
                                     uint8_t type, const std::vector<Vec3d>& points, double radius,
                                     const Box& box);

}  // namespace mpsph
