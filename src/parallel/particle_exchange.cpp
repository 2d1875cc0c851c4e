#include "parallel/particle_exchange.hpp"

#include <algorithm>
#include <numeric>

namespace mpsph {

bool FieldSet::contains(const FieldInfo& f) const {
  return members.empty() ||
         std::find(members.begin(), members.end(), std::string(f.member)) != members.end();
}

ExchangePlan make_exchange_plan(const std::vector<std::vector<uint32_t>>& to_rank,
                                const MpiComm& comm) {
  ExchangePlan plan;
  plan.send_offsets.assign(comm.size() + 1, 0);
  for (int r = 0; r < comm.size(); ++r) {
    plan.send_offsets[r + 1] = plan.send_offsets[r] + to_rank[r].size();
    plan.send_index.insert(plan.send_index.end(), to_rank[r].begin(), to_rank[r].end());
  }
  // The counts only: each rank learns how many particles every other rank sends it.
  std::vector<uint64_t> counts(comm.size());
  for (int r = 0; r < comm.size(); ++r) counts[r] = to_rank[r].size();
  std::vector<std::size_t> one(comm.size() + 1);
  std::iota(one.begin(), one.end(), std::size_t{0});
  std::vector<std::size_t> recv_one;
  const std::vector<uint64_t> received = comm.all_to_all(counts, one, &recv_one);
  plan.recv_offsets.assign(comm.size() + 1, 0);
  for (int r = 0; r < comm.size(); ++r)
    plan.recv_offsets[r + 1] = plan.recv_offsets[r] + received[r];
  return plan;
}

namespace {

template <class T>
void exchange_one(const std::vector<T>& src, const ExchangePlan& plan, std::vector<T>& dst,
                  const std::vector<std::size_t>& into_slot, const MpiComm& comm,
                  const std::vector<std::size_t>* from_slot) {
  std::vector<T> send(plan.send_index.size());
  for (std::size_t k = 0; k < send.size(); ++k) {
    const std::size_t i = plan.send_index[k];
    send[k] = src[from_slot ? (*from_slot)[i] : i];
  }
  std::vector<T> recv(plan.n_recv());
  comm.all_to_all(send.data(), plan.send_offsets, recv.data(), plan.recv_offsets);
  for (std::size_t m = 0; m < recv.size(); ++m) dst[into_slot[m]] = recv[m];
}

}  // namespace

void exchange_fields(const ParticleStore& from, const ExchangePlan& plan, const FieldSet& fields,
                     ParticleStore& into, const std::vector<std::size_t>& into_slot,
                     const MpiComm& comm, const std::vector<std::size_t>* from_slot) {
  // One all-to-all per field of the set, in table order (the same on every rank).
#define MPSPH_EXCHANGE_FIELD(name, T, h5, dim, pers, types, desc)    \
  if (fields.contains(FieldInfo{#name, h5, dim, pers, types, desc})) \
    exchange_one(from.name, plan, into.name, into_slot, comm, from_slot);
  MPSPH_PARTICLE_FIELDS(MPSPH_EXCHANGE_FIELD)
#undef MPSPH_EXCHANGE_FIELD
}

std::size_t migrate_particles(ParticleStore& store, const std::vector<int>& dest,
                              const MpiComm& comm) {
  std::vector<std::vector<uint32_t>> to_rank(comm.size());
  std::size_t sent = 0;
  for (std::size_t i = 0; i < store.size(); ++i) {
    to_rank[dest[i]].push_back(uint32_t(i));
    sent += dest[i] != comm.rank();
  }
  const ExchangePlan plan = make_exchange_plan(to_rank, comm);
  ParticleStore out;
  out.resize(plan.n_recv());
  std::vector<std::size_t> slot(plan.n_recv());
  std::iota(slot.begin(), slot.end(), std::size_t{0});
  exchange_fields(store, plan, FieldSet{}, out, slot, comm);
  store = std::move(out);
  return sent;
}

}  // namespace mpsph
