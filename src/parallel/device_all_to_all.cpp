#include "parallel/device_all_to_all.hpp"

#ifdef MPSPH_HAVE_CUDA

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace mpsph {

namespace {

// What each rank tells the others before an exchange: its receive buffer.
struct BufferNote {
  IpcHandle handle;
  uint64_t capacity;
};

}  // namespace

DeviceAllToAll::DeviceAllToAll(const MpiComm& comm)
    : comm_(comm), peers_(std::size_t(comm.size())) {
  MPI_Comm node;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (node_size != comm.size()) {
    reason_ = "the ranks are on more than one node";
    return;
  }
  // A trial: every rank writes its rank number into slot `rank` of every other's buffer. The
  // local set-up first, then the exchange (each failure reaches every rank).
  const int P = comm.size(), me = comm.rank();
  const std::size_t bytes = std::size_t(P) * sizeof(int32_t);
  std::vector<std::size_t> off(std::size_t(P) + 1);
  for (int r = 0; r <= P; ++r) off[std::size_t(r)] = std::size_t(r) * sizeof(int32_t);
  std::vector<int32_t> mine(std::size_t(P), me), got(std::size_t(P), -1);
  IpcBuffer send;
  std::string err;
  try {
    recv_.reserve(bytes);
    send.reserve(bytes);
    ipc_copy_async(send.data(), mine.data(), bytes);
  } catch (const Error& e) {
    err = e.what();
  }
  if (comm.any(!err.empty())) {
    reason_ = err.empty() ? "the device buffers failed on another rank" : err;
    return;
  }
  usable_ = true;
  try {
    const unsigned char* in = exchange(send.data(), off, off);
    ipc_copy_async(got.data(), in, bytes);
    ipc_device_synchronize();
    for (int r = 0; r < P; ++r)
      if (got[std::size_t(r)] != r) err = "a trial exchange between the GPUs did not arrive intact";
  } catch (const Error& e) {
    err = e.what();
  }
  usable_ = !comm.any(!err.empty());
  if (!usable_) reason_ = err.empty() ? "a trial exchange failed on another rank" : err;
}

const unsigned char* DeviceAllToAll::exchange(const unsigned char* send,
                                              const std::vector<std::size_t>& send_off,
                                              const std::vector<std::size_t>& recv_off) {
  if (!usable_) throw Error("DeviceAllToAll::exchange: " + reason_);
  const int P = comm_.size(), me = comm_.rank();
  // The send buffer is written, and this rank's readers of the last receipt are done, before any
  // rank writes into this one's buffer (the collectives below order that).
  ipc_device_synchronize();
  // A failure on one rank (a buffer that cannot grow, a mapping the runtime refuses) reaches every
  // rank after the collectives: none is left waiting for the others.
  std::string err;
  try {
    recv_.reserve(std::max<std::size_t>(recv_off.back(), 1));
  } catch (const Error& e) {
    err = e.what();
  }
  BufferNote note{recv_.handle(), err.empty() ? uint64_t(recv_.capacity()) : 0};
  std::vector<BufferNote> notes(static_cast<std::size_t>(P));
  MPI_Allgather(&note, int(sizeof note), MPI_BYTE, notes.data(), int(sizeof note), MPI_BYTE,
                comm_.get());
  // Where this rank's part lands in each other's buffer.
  std::vector<uint64_t> at_here(static_cast<std::size_t>(P)), at_there(at_here.size());
  for (int r = 0; r < P; ++r) at_here[std::size_t(r)] = recv_off[std::size_t(r)];
  MPI_Alltoall(at_here.data(), 1, MPI_UINT64_T, at_there.data(), 1, MPI_UINT64_T, comm_.get());
  try {
    for (int r = 0; r < P && err.empty(); ++r) {
      const std::size_t bytes = send_off[std::size_t(r) + 1] - send_off[std::size_t(r)];
      const unsigned char* from = send + send_off[std::size_t(r)];
      if (r == me) {
        ipc_copy_async(recv_.data() + recv_off[std::size_t(r)], from, bytes);
        continue;
      }
      // Every mapping follows its buffer, so that a grown buffer's old allocation is unmapped
      // everywhere before it is freed below.
      if (notes[std::size_t(r)].capacity == 0)
        throw Error("DeviceAllToAll::exchange: rank " + std::to_string(r) +
                    " has no receive buffer (its error says why)");
      IpcMapping& m = peers_[std::size_t(r)];
      m.open(notes[std::size_t(r)].handle);
      if (at_there[std::size_t(r)] + bytes > notes[std::size_t(r)].capacity)
        throw Error("DeviceAllToAll::exchange: rank " + std::to_string(r) +
                    " has no room for this rank's part");
      ipc_copy_async(m.data() + at_there[std::size_t(r)], from, bytes);
    }
    ipc_device_synchronize();
  } catch (const Error& e) {
    err = e.what();
  }
  if (comm_.any(!err.empty()))
    throw Error(err.empty() ? std::string("a device exchange failed on another rank") : err);
  recv_.release_retired();
  return recv_.data();
}

}  // namespace mpsph

#endif
