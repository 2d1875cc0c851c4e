#include "parallel/particle_exchange.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>

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
  const std::ptrdiff_t n_send = std::ptrdiff_t(plan.send_index.size());
  std::vector<T> send(plan.send_index.size());
#pragma omp parallel for schedule(static) if (n_send > 65536)
  for (std::ptrdiff_t k = 0; k < n_send; ++k) {
    const std::size_t i = plan.send_index[std::size_t(k)];
    send[std::size_t(k)] = src[from_slot ? (*from_slot)[i] : i];
  }
  std::vector<T> recv(plan.n_recv());
  comm.all_to_all(send.data(), plan.send_offsets, recv.data(), plan.recv_offsets);
  const std::ptrdiff_t n_recv = std::ptrdiff_t(recv.size());
#pragma omp parallel for schedule(static) if (n_recv > 65536)
  for (std::ptrdiff_t m = 0; m < n_recv; ++m) dst[into_slot[std::size_t(m)]] = recv[std::size_t(m)];
}

// Every field in turn becomes a new array of the kept particles (store indices `keep`, in order)
// followed by the plan's arrivals, which then replaces the old array: the memory beyond the store
// is a field's at a time (growing the whole store by the arrivals first, as the uncompacted
// migration does, doubles a rank's host memory when most of its particles move - the start-up of
// a large run made in parts).
void keep_and_receive(ParticleStore& store, const std::vector<std::size_t>& keep,
                      const ExchangePlan& plan, const MpiComm& comm) {
  const std::ptrdiff_t n_keep = std::ptrdiff_t(keep.size());
  store.for_each_field([&](const FieldInfo&, auto& v) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    const std::vector<T> arrivals =
        exchange_values<T>(plan, comm, [&](uint32_t i) { return v[i]; });
    std::vector<T> next(keep.size() + arrivals.size());
#pragma omp parallel for schedule(static) if (n_keep > 65536)
    for (std::ptrdiff_t k = 0; k < n_keep; ++k) next[std::size_t(k)] = v[keep[std::size_t(k)]];
    std::copy(arrivals.begin(), arrivals.end(), next.begin() + n_keep);
    v.swap(next);
  });
  // The fields have their new length already; resize states it to the store (a pinned gas count
  // no longer holds).
  store.resize(keep.size() + plan.n_recv());
}

}  // namespace

void exchange_fields(const ParticleStore& from, const ExchangePlan& plan, const FieldSet& fields,
                     ParticleStore& into, const std::vector<std::size_t>& into_slot,
                     const MpiComm& comm, const std::vector<std::size_t>* from_slot) {
  // One all-to-all per field of the set, in table order (the same on every rank).
#define MPSPH_EXCHANGE_FIELD(name, T, h5, dim, pers, types, group, desc)    \
  if (fields.contains(FieldInfo{#name, h5, dim, pers, types, group, desc})) \
    exchange_one(from.name, plan, into.name, into_slot, comm, from_slot);
  MPSPH_PARTICLE_FIELDS(MPSPH_EXCHANGE_FIELD)
#undef MPSPH_EXCHANGE_FIELD
}

std::size_t migrate_particles(ParticleStore& store, const std::vector<int>& dest,
                              const MpiComm& comm, std::vector<std::size_t>* held) {
  // Only the particles that leave travel: the others keep their place (in their order), the
  // arrivals follow them, in the order of their ranks. Each thread lists the particles of its
  // block of the store; the blocks are joined in order.
  const std::size_t n = store.size();
  const int p = comm.size(), me = comm.rank();
  const std::size_t blocks = std::max<std::size_t>(1, std::min<std::size_t>(64, n / 65536));
  auto block_begin = [&](std::size_t b) { return n * b / blocks; };
  // count[b * p + r]: particles of block b for rank r.
  std::vector<std::size_t> count(blocks * std::size_t(p), 0);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b)
    for (std::size_t i = block_begin(std::size_t(b)); i < block_begin(std::size_t(b) + 1); ++i)
      ++count[std::size_t(b) * std::size_t(p) + std::size_t(dest[i])];
  std::vector<std::vector<uint32_t>> to_rank(p);
  std::vector<std::size_t> keep;
  std::vector<std::size_t> at(blocks * std::size_t(p));  // where block b's items for r go
  for (int r = 0; r < p; ++r) {
    std::size_t total = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      at[b * std::size_t(p) + std::size_t(r)] = total;
      total += count[b * std::size_t(p) + std::size_t(r)];
    }
    if (r == me)
      keep.resize(total);
    else
      to_rank[r].resize(total);
  }
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) {
    std::size_t* next = &at[std::size_t(b) * std::size_t(p)];
    for (std::size_t i = block_begin(std::size_t(b)); i < block_begin(std::size_t(b) + 1); ++i) {
      const int r = dest[i];
      if (r == me)
        keep[next[r]++] = i;
      else
        to_rank[r][next[r]++] = uint32_t(i);
    }
  }
  const std::size_t sent = n - keep.size();
  const ExchangePlan plan = make_exchange_plan(to_rank, comm);
  if (comm.sum(uint64_t(sent)) == 0) {  // nothing moves on any rank
    if (held) *held = std::move(keep);
    return 0;
  }
  if (!held) {
    keep_and_receive(store, keep, plan, comm);
    return sent;
  }
  store.resize(n + plan.n_recv());
  std::vector<std::size_t> slot(plan.n_recv());
  std::iota(slot.begin(), slot.end(), n);
  exchange_fields(store, plan, FieldSet{}, store, slot, comm);
  keep.resize(keep.size() + plan.n_recv());
  std::iota(keep.end() - std::ptrdiff_t(plan.n_recv()), keep.end(), n);
  *held = std::move(keep);
  return sent;
}

}  // namespace mpsph
