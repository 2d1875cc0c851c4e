#include "parallel/module_ranks_mpi.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "parallel/particle_exchange.hpp"
#include "timestep/integrator.hpp"

namespace mpsph {

double MpiModuleRanks::max(double local) const {
  return comm_.max(local);
}

double MpiModuleRanks::sum(double local) const {
  return comm_.sum(local);
}

std::vector<Vec3d> MpiModuleRanks::gather_points(const std::vector<Vec3d>& local) const {
  return comm_.all_gather(local, nullptr);
}

void MpiModuleRanks::run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                                 const std::function<void(const StageArgs&)>& stage) const {
  if (local.p.mass != store_.mass.data() || local.p.n != store_.size())
    throw Error("MpiModuleRanks::run_on_root: the stage's particles are not this rank's store");
  const int P = comm_.size();
  const bool root = comm_.rank() == 0;
  // To rank 0, in (rank, store index) order.
  std::vector<std::vector<uint32_t>> to_root(static_cast<std::size_t>(P));
  to_root[0] = members;
  const ExchangePlan up = make_exchange_plan(to_root, comm_);
  ParticleStore work;
  work.resize(up.n_recv());
  std::vector<std::size_t> arrival(up.n_recv());
  std::iota(arrival.begin(), arrival.end(), std::size_t(0));
  exchange_fields(store_, up, FieldSet{}, work, arrival, comm_);

  std::vector<std::vector<uint32_t>> back(static_cast<std::size_t>(P));
  if (root) {
    // Gas first, as every stage expects: a stable sort by type keeps each type's members in
    // (rank, store index) order. order[k]: the arrival index of work particle k.
    std::vector<std::size_t> order(work.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return work.type[a] < work.type[b]; });
    work.permute(order);
    StageArgs w = local;
    w.p = work.view();
    w.ranks = nullptr;
    for (int t = 0; t <= kNumTypes; ++t)
      w.type_begin[std::size_t(t)] = std::size_t(
          std::lower_bound(work.type.begin(), work.type.end(), uint8_t(t)) - work.type.begin());
    std::vector<uint32_t> active_index;
    if (!local.active.all()) {
      std::size_t n_gas = 0;
      select_active(work, local.active.tick, active_index, n_gas);
      w.active = active_subset(active_index, n_gas, local.active.tick);
      w.active.lanes = local.active.lanes;
    }
    stage(w);
    // Back to each member's rank, in the order it sent them.
    std::vector<uint32_t> slot_of_arrival(work.size());
    for (std::size_t k = 0; k < order.size(); ++k) slot_of_arrival[order[k]] = uint32_t(k);
    for (int r = 0; r < P; ++r)
      for (std::size_t m = up.recv_offsets[std::size_t(r)]; m < up.recv_offsets[std::size_t(r) + 1];
           ++m)
        back[std::size_t(r)].push_back(slot_of_arrival[m]);
  }
  const ExchangePlan down = make_exchange_plan(back, comm_);
  const std::vector<std::size_t> into(members.begin(), members.end());
  exchange_fields(work, down, FieldSet{}, store_, into, comm_);
}

}  // namespace mpsph
