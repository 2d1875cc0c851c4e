// The MPI communicator of a distributed run and the few collectives the domain decomposition, the
// particle migration and the SPH halos need. Everything MPI-specific of mpsph lives in
// src/parallel/ (docs/mpi.md); the rest of the code never includes <mpi.h>.
//
// The all-to-all exchanges move any number of bytes: each rank's part for another rank travels
// as point-to-point messages of at most max_message_bytes() (MPI's counts are int), so the
// migration of a large run's particles or a restart gathered on one rank is not limited to
// 2^31 - 1 bytes.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/wall_clock.hpp"

namespace mpsph {

class MpiComm {
 public:
  explicit MpiComm(MPI_Comm comm = MPI_COMM_WORLD);
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  double sum(double x) const;
  double max(double x) const;
  double min(double x) const;
  uint64_t sum(uint64_t x) const;
  bool any(bool x) const;
  void barrier() const;
  // Element-wise sums / minima / maxima of v over all ranks (in place).
  void sum(std::vector<double>& v) const;
  void min(std::vector<double>& v) const;
  void max(std::vector<double>& v) const;
  // The largest message of an all-to-all exchange (bytes; default 1 GiB): a larger part for one
  // rank goes as several, in order. Smaller only to test the splitting.
  std::size_t max_message_bytes() const { return max_message_bytes_; }
  void set_max_message_bytes(std::size_t bytes) { max_message_bytes_ = bytes > 0 ? bytes : 1; }
  // Rank `root`'s v on every rank (the size must already agree).
  void broadcast(std::vector<uint64_t>& v, int root) const;

  // Every rank's `local` items concatenated in rank order, and where each rank's items begin
  // (offsets of size() + 1).
  template <class T>
  std::vector<T> all_gather(const std::vector<T>& local, std::vector<std::size_t>* offsets) const;

  // All-to-all of trivially copyable items: send[send_offsets[r] .. send_offsets[r + 1]) goes to
  // rank r; returns the received items in rank order and sets recv_offsets (size() + 1).
  template <class T>
  std::vector<T> all_to_all(const std::vector<T>& send,
                            const std::vector<std::size_t>& send_offsets,
                            std::vector<std::size_t>* recv_offsets) const;
  // The same exchange when both sides' counts are already known (a halo update): `recv` must have
  // recv_offsets.back() elements.
  template <class T>
  void all_to_all(const T* send, const std::vector<std::size_t>& send_offsets, T* recv,
                  const std::vector<std::size_t>& recv_offsets) const;
  // The same for records of `record_bytes` bytes each (the offsets count records): particles
  // packed field by field, whose size the caller knows at run time.
  void all_to_all_records(const void* send, const std::vector<std::size_t>& send_offsets,
                          void* recv, const std::vector<std::size_t>& recv_offsets,
                          std::size_t record_bytes) const;

 private:
  // Bytes [send_off[r], send_off[r + 1]) of `send` to rank r; recv_off likewise for what each
  // rank sends here.
  void all_to_all_bytes(const unsigned char* send, const std::vector<std::size_t>& send_off,
                        unsigned char* recv, const std::vector<std::size_t>& recv_off) const;
  std::vector<std::size_t> exchange_counts(const std::vector<std::size_t>& send_offsets) const;
  std::vector<uint64_t> gather_sizes(uint64_t n) const;
  void all_gather_bytes(const void* send, int bytes, void* recv, const std::vector<int>& counts,
                        const std::vector<int>& displs) const;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::size_t max_message_bytes_ = std::size_t(1) << 30;
};

// Runs f; an mpsph::Error on any rank becomes an Error on every rank (no rank is left waiting in
// a collective call). Returns the wall seconds f took on this rank (its own work, without the
// wait for the other ranks).
template <class F>
double on_every_rank(const MpiComm& comm, F&& f) {
  std::string err;
  const double t0 = wall_seconds();
  try {
    f();
  } catch (const Error& e) {
    err = e.what();
  }
  const double own = wall_seconds() - t0;
  if (comm.any(!err.empty()))
    throw Error(err.empty() ? std::string("failed on another rank (its message says why)") : err);
  return own;
}

namespace detail {
// Byte counts and displacements of item ranges [offsets[r], offsets[r + 1]) of `item` bytes each.
void byte_counts(const std::vector<std::size_t>& offsets, std::size_t item,
                 std::vector<int>& counts, std::vector<int>& displs);
}  // namespace detail

template <class T>
std::vector<T> MpiComm::all_gather(const std::vector<T>& local,
                                   std::vector<std::size_t>* offsets) const {
  static_assert(std::is_trivially_copyable_v<T>, "MPI moves items as bytes");
  const std::vector<uint64_t> sizes = gather_sizes(local.size());
  std::vector<std::size_t> off(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) off[r + 1] = off[r] + sizes[r];
  std::vector<int> counts, displs;
  detail::byte_counts(off, sizeof(T), counts, displs);
  std::vector<T> out(off.back());
  all_gather_bytes(local.data(), counts[rank_], out.data(), counts, displs);
  if (offsets) *offsets = std::move(off);
  return out;
}

template <class T>
std::vector<T> MpiComm::all_to_all(const std::vector<T>& send,
                                   const std::vector<std::size_t>& send_offsets,
                                   std::vector<std::size_t>* recv_offsets) const {
  std::vector<std::size_t> roff = exchange_counts(send_offsets);
  std::vector<T> recv(roff.back());
  all_to_all(send.data(), send_offsets, recv.data(), roff);
  if (recv_offsets) *recv_offsets = std::move(roff);
  return recv;
}

template <class T>
void MpiComm::all_to_all(const T* send, const std::vector<std::size_t>& send_offsets, T* recv,
                         const std::vector<std::size_t>& recv_offsets) const {
  static_assert(std::is_trivially_copyable_v<T>, "MPI moves items as bytes");
  all_to_all_records(send, send_offsets, recv, recv_offsets, sizeof(T));
}

}  // namespace mpsph
