// ModuleRanks (core/module_ranks.hpp) over MPI, for the physics modules of the rank backend
// (run/mpi/rank_backend.cpp): the members of a stage go to rank 0 and back with every field of the
// field table (parallel/particle_exchange.hpp).
#pragma once

#include "core/module_ranks.hpp"
#include "core/particle_store.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

class MpiModuleRanks final : public ModuleRanks {
 public:
  // `store`: this rank's particles, the arrays of the StageArgs::p that the stages get; it must
  // outlive this object.
  MpiModuleRanks(ParticleStore& store, const MpiComm& comm) : store_(store), comm_(comm) {}
  double max(double local) const override;
  double sum(double local) const override;
  std::vector<Vec3d> gather_points(const std::vector<Vec3d>& local) const override;
  // mpsph::Error when local.p is not the view of `store`.
  void run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                   const std::function<void(const StageArgs&)>& stage) const override;

 private:
  ParticleStore& store_;
  MpiComm comm_;
};

}  // namespace mpsph
