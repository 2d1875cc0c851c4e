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

std::vector<double> MpiModuleRanks::gather_values(const std::vector<double>& local) const {
  return comm_.all_gather(local, nullptr);
}

void MpiModuleRanks::check_view(const ParticleView& local) const {
  if (local.mass != store_.mass.data() || local.n != store_.size())
    throw Error("MpiModuleRanks: the stage's particles are not this rank's store");
}

uint64_t MpiModuleRanks::order_key(std::size_t i) const {
  return keys_ && i < keys_->size() ? (*keys_)[i] : uint64_t(i);
}

Ghosts MpiModuleRanks::fetch(const ParticleView& local, const Box& box,
                             const std::vector<Vec3d>& centres, const std::vector<double>& radius,
                             uint8_t type, const std::vector<std::string>& fields) const {
  check_view(local);
  const int P = comm_.size();
  std::vector<std::size_t> off;
  const std::vector<Vec3d> all_centres = comm_.all_gather(centres, &off);
  const std::vector<double> all_radius = comm_.all_gather(radius, nullptr);
  const std::size_t end = type == kGas ? local.n_gas : local.n;
  std::vector<std::vector<uint32_t>> to_rank(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    if (r == comm_.rank() || off[std::size_t(r)] == off[std::size_t(r) + 1]) continue;
    const auto b = all_centres.begin() + std::ptrdiff_t(off[std::size_t(r)]);
    const auto e = all_centres.begin() + std::ptrdiff_t(off[std::size_t(r) + 1]);
    const auto rb = all_radius.begin() + std::ptrdiff_t(off[std::size_t(r)]);
    to_rank[std::size_t(r)] = particles_near(local, 0, end, type, std::vector<Vec3d>(b, e),
                                             std::vector<double>(rb, rb + (e - b)), box);
  }
  const ExchangePlan plan = make_exchange_plan(to_rank, comm_);
  Ghosts g;
  g.particles.resize(plan.n_recv());
  std::vector<std::size_t> slot(plan.n_recv());
  std::iota(slot.begin(), slot.end(), std::size_t(0));
  exchange_fields(store_, plan, FieldSet{fields}, g.particles, slot, comm_);
  g.index = exchange_values<uint32_t>(plan, comm_, [](uint32_t i) { return i; });
  g.owner.resize(plan.n_recv());
  for (int r = 0; r < P; ++r)
    for (std::size_t m = plan.recv_offsets[std::size_t(r)];
         m < plan.recv_offsets[std::size_t(r) + 1]; ++m)
      g.owner[m] = r;
  return g;
}

std::vector<unsigned char> MpiModuleRanks::send_to_owners(const Ghosts& g,
                                                          const std::vector<uint32_t>& ghost_of,
                                                          const std::vector<unsigned char>& records,
                                                          std::size_t record_bytes,
                                                          std::vector<uint32_t>& index) const {
  const int P = comm_.size();
  if (records.size() != ghost_of.size() * record_bytes)
    throw Error("MpiModuleRanks::send_to_owners: records and ghosts do not match");
  // By owner, each owner's in the order given (a counting sort).
  std::vector<std::size_t> count(static_cast<std::size_t>(P) + 1, 0);
  for (uint32_t k : ghost_of) ++count[std::size_t(g.owner[k]) + 1];
  for (int r = 0; r < P; ++r) count[std::size_t(r) + 1] += count[std::size_t(r)];
  std::vector<std::size_t> offsets = count;  // records per owner
  std::vector<uint32_t> send_index(ghost_of.size());
  std::vector<unsigned char> send(records.size());
  for (std::size_t k = 0; k < ghost_of.size(); ++k) {
    const std::size_t at = count[std::size_t(g.owner[ghost_of[k]])]++;
    send_index[at] = g.index[ghost_of[k]];
    std::copy_n(records.begin() + std::ptrdiff_t(k * record_bytes), record_bytes,
                send.begin() + std::ptrdiff_t(at * record_bytes));
  }
  std::vector<std::size_t> recv_offsets;
  index = comm_.all_to_all(send_index, offsets, &recv_offsets);
  std::vector<unsigned char> out(recv_offsets.back() * record_bytes);
  comm_.all_to_all_records(send.data(), offsets, out.data(), recv_offsets, record_bytes);
  return out;
}

void MpiModuleRanks::run_on_root(const StageArgs& local, const std::vector<uint32_t>& members,
                                 const std::function<void(const StageArgs&)>& stage) const {
  check_view(local.p);
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
