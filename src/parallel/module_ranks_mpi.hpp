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
  int rank() const override { return comm_.rank(); }
  double max(double local) const override;
  double sum(double local) const override;
  void min(std::vector<double>& v) const override { comm_.min(v); }
  std::vector<Vec3d> gather_points(const std::vector<Vec3d>& local) const override;
  std::vector<double> gather_values(const std::vector<double>& local) const override;
  // mpsph::Error when local.p is not the view of `store` (also for fetch).
  void run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                   const std::function<void(const StageArgs&)>& stage) const override;
  // The keys of order_key(), one per particle of `store` in store order (the SphOrder of the
  // rank's last order stage, parallel/distributed_sph.hpp); must outlive their use. Without them
  // (null, or too short) a particle's key is its store index.
  void set_order_keys(const std::vector<uint64_t>* keys) { keys_ = keys; }
  uint64_t order_key(std::size_t i) const override;
  Ghosts fetch(const ParticleView& local, const Box& box, const std::vector<Vec3d>& centres,
               const std::vector<double>& radius, uint8_t type,
               const std::vector<std::string>& fields = {}) const override;
  std::vector<unsigned char> send_to_owners(const Ghosts& g, const std::vector<uint32_t>& ghost_of,
                                            const std::vector<unsigned char>& records,
                                            std::size_t record_bytes,
                                            std::vector<uint32_t>& index) const override;

 private:
  void check_view(const ParticleView& local) const;
  ParticleStore& store_;
  MpiComm comm_;
  const std::vector<uint64_t>* keys_ = nullptr;
};

}  // namespace mpsph
