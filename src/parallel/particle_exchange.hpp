// Moving particles between ranks, driven by the field table (core/particle_fields.hpp): every
// field, or a chosen set of fields, travels as raw bytes, so a field added to the table migrates
// (and can be sent to halos) without any MPI code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

// A set of fields by member name (FieldInfo::member); empty = every field of the table.
struct FieldSet {
  std::vector<std::string> members;
  bool contains(const FieldInfo& f) const;
};

// Sends particle i to rank dest[i] with every field (collective). The store then holds the
// particles that stayed, in their order, followed by those received, in the order (source rank,
// order on the source); only the leaving particles are sent. Returns how many it sent to other
// ranks. With `held`, the store is not compacted: it keeps the leaving particles in place, the
// arrivals follow, and *held lists the store indices (ascending) of the particles this rank now
// holds, in the order above - for a caller that orders them next with one permute
// (order_particles with a subset).
std::size_t migrate_particles(ParticleStore& store, const std::vector<int>& dest,
                              const MpiComm& comm, std::vector<std::size_t>* held = nullptr);

// A fixed exchange pattern: from[send_offsets[r] .. send_offsets[r + 1]) are the store indices
// this rank sends to rank r, and recv_offsets the ranges of what it receives from each rank.
struct ExchangePlan {
  std::vector<uint32_t> send_index;
  std::vector<std::size_t> send_offsets;  // size P + 1
  std::vector<std::size_t> recv_offsets;  // size P + 1
  std::size_t n_recv() const { return recv_offsets.empty() ? 0 : recv_offsets.back(); }
};

// The plan for sending the indices of `to_rank` (one list per rank; collective: learns the
// receive counts).
ExchangePlan make_exchange_plan(const std::vector<std::vector<uint32_t>>& to_rank,
                                const MpiComm& comm);

// Sends the `fields` of the plan's particles of `from` (store index from_slot(send_index[k]) when
// from_slot is given, else send_index[k]) and writes the m-th received particle into store index
// into_slot[m] of `into` (collective). `into` must already be large enough.
void exchange_fields(const ParticleStore& from, const ExchangePlan& plan, const FieldSet& fields,
                     ParticleStore& into, const std::vector<std::size_t>& into_slot,
                     const MpiComm& comm, const std::vector<std::size_t>* from_slot = nullptr);

// One value per particle of the plan, value(send_index[k]), sent along it: the m-th value
// received belongs to the m-th particle received (collective). For what travels with the ghosts
// but is not a field of the store (the order keys of a halo, the time-step state of its ghosts).
template <class T, class F>
std::vector<T> exchange_values(const ExchangePlan& plan, const MpiComm& comm, F value) {
  std::vector<T> send(plan.send_index.size());
  const std::ptrdiff_t n = std::ptrdiff_t(send.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k)
    send[std::size_t(k)] = value(plan.send_index[std::size_t(k)]);
  std::vector<T> recv(plan.n_recv());
  comm.all_to_all(send.data(), plan.send_offsets, recv.data(), plan.recv_offsets);
  return recv;
}

// The plan run backwards: one value per received particle goes back to the rank it came from;
// entry k of the result belongs to the sent particle send_index[k] (collective). For what the
// receivers ask of the owners (the wake-up requests of block time steps).
template <class T>
std::vector<T> return_values(const std::vector<T>& per_received, const ExchangePlan& plan,
                             const MpiComm& comm) {
  std::vector<T> back(plan.send_index.size());
  comm.all_to_all(per_received.data(), plan.recv_offsets, back.data(), plan.send_offsets);
  return back;
}

}  // namespace mpsph
