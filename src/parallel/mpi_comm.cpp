#include "parallel/mpi_comm.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mpsph {

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw Error(std::string("MPI: ") + what + " failed: " + std::string(msg, std::size_t(len)));
}

}  // namespace

namespace detail {

void byte_counts(const std::vector<std::size_t>& offsets, std::size_t item,
                 std::vector<int>& counts, std::vector<int>& displs) {
  const std::size_t n = offsets.size() - 1;
  counts.resize(n);
  displs.resize(n);
  constexpr std::size_t kMax = std::size_t(std::numeric_limits<int>::max());
  if (offsets.back() * item > kMax)
    throw Error("MPI: an exchange of " + std::to_string(offsets.back() * item) +
                " bytes exceeds the int counts of MPI (2^31 - 1)");
  for (std::size_t r = 0; r < n; ++r) {
    counts[r] = int((offsets[r + 1] - offsets[r]) * item);
    displs[r] = int(offsets[r] * item);
  }
}

}  // namespace detail

MpiComm::MpiComm(MPI_Comm comm) : comm_(comm) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

double MpiComm::sum(double x) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return x;
}
double MpiComm::max(double x) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return x;
}
double MpiComm::min(double x) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MIN, comm_), "MPI_Allreduce");
  return x;
}
uint64_t MpiComm::sum(uint64_t x) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  return x;
}
bool MpiComm::any(bool x) const {
  int v = x ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LOR, comm_), "MPI_Allreduce");
  return v != 0;
}
void MpiComm::barrier() const {
  check(MPI_Barrier(comm_), "MPI_Barrier");
}
void MpiComm::sum(std::vector<double>& v) const {
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_SUM, comm_),
        "MPI_Allreduce");
}
void MpiComm::min(std::vector<double>& v) const {
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_MIN, comm_),
        "MPI_Allreduce");
}
void MpiComm::max(std::vector<double>& v) const {
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_MAX, comm_),
        "MPI_Allreduce");
}
void MpiComm::broadcast(std::vector<uint64_t>& v, int root) const {
  check(MPI_Bcast(v.data(), int(v.size()), MPI_UINT64_T, root, comm_), "MPI_Bcast");
}

std::vector<uint64_t> MpiComm::gather_sizes(uint64_t n) const {
  std::vector<uint64_t> sizes(size_);
  check(MPI_Allgather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_), "MPI_Allgather");
  return sizes;
}

void MpiComm::all_gather_bytes(const void* send, int bytes, void* recv,
                               const std::vector<int>& counts,
                               const std::vector<int>& displs) const {
  check(MPI_Allgatherv(send, bytes, MPI_BYTE, recv, counts.data(), displs.data(), MPI_BYTE, comm_),
        "MPI_Allgatherv");
}

std::vector<std::size_t> MpiComm::exchange_counts(
    const std::vector<std::size_t>& send_offsets) const {
  std::vector<uint64_t> send(size_), recv(size_);
  for (int r = 0; r < size_; ++r) send[r] = send_offsets[r + 1] - send_offsets[r];
  check(MPI_Alltoall(send.data(), 1, MPI_UINT64_T, recv.data(), 1, MPI_UINT64_T, comm_),
        "MPI_Alltoall");
  std::vector<std::size_t> off(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) off[r + 1] = off[r] + recv[r];
  return off;
}

void MpiComm::all_to_all_records(const void* send, const std::vector<std::size_t>& send_offsets,
                                 void* recv, const std::vector<std::size_t>& recv_offsets,
                                 std::size_t record_bytes) const {
  std::vector<std::size_t> sb(send_offsets), rb(recv_offsets);
  for (std::size_t& b : sb) b *= record_bytes;
  for (std::size_t& b : rb) b *= record_bytes;
  all_to_all_bytes(static_cast<const unsigned char*>(send), sb, static_cast<unsigned char*>(recv),
                   rb);
}

void MpiComm::all_to_all_bytes(const unsigned char* send, const std::vector<std::size_t>& send_off,
                               unsigned char* recv,
                               const std::vector<std::size_t>& recv_off) const {
  // Every rank pair splits its part the same way on both sides (the sender's size is the
  // receiver's); messages between two ranks with one tag arrive in the order they were sent.
  constexpr int kTag = 7301;
  const std::size_t chunk = max_message_bytes_;
  const std::size_t me = std::size_t(rank_);
  if (send_off[me + 1] - send_off[me] != recv_off[me + 1] - recv_off[me])
    throw Error("MPI: an exchange sends this rank " +
                std::to_string(send_off[me + 1] - send_off[me]) + " bytes of its own but expects " +
                std::to_string(recv_off[me + 1] - recv_off[me]));

  std::vector<MPI_Request> req;
  // A receive (into recv_buf) or a send (from send_buf) for every other rank's part [off[r],
  // off[r + 1]), in messages of at most `chunk` bytes.
  auto post = [&](unsigned char* recv_buf, const unsigned char* send_buf,
                  const std::vector<std::size_t>& off) {
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      for (std::size_t b = off[std::size_t(r)]; b < off[std::size_t(r) + 1]; b += chunk) {
        const int bytes = int(std::min(chunk, off[std::size_t(r) + 1] - b));
        req.emplace_back();
        if (recv_buf)
          check(MPI_Irecv(recv_buf + b, bytes, MPI_BYTE, r, kTag, comm_, &req.back()), "MPI_Irecv");
        else
          check(MPI_Isend(send_buf + b, bytes, MPI_BYTE, r, kTag, comm_, &req.back()), "MPI_Isend");
      }
    }
  };
  post(recv, nullptr, recv_off);  // the receives first
  post(nullptr, send, send_off);
  if (send_off[me + 1] > send_off[me])
    std::memcpy(recv + recv_off[me], send + send_off[me], send_off[me + 1] - send_off[me]);
  check(MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace mpsph
