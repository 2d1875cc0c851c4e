// MpiComm's all-to-all exchange (parallel/mpi_comm.hpp), run by mpiexec on 1, 2 and 3 ranks: each
// rank's part for another rank travels as messages of at most max_message_bytes(); parts larger
// than that (here a few bytes, in a run 1 GiB) arrive whole and in order, as do empty parts and
// the rank's own part.
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "parallel/mpi_comm.hpp"

using namespace mpsph;

namespace {

// The k-th item rank `from` sends rank `to`.
uint64_t item(int from, int to, std::size_t k) {
  return (uint64_t(from) << 48) | (uint64_t(to) << 32) | uint64_t(k);
}
// How many items rank `from` sends rank `to`: 0 for some pairs, up to a few hundred.
std::size_t count(int from, int to) {
  return (from + 2 * to) % 3 == 1 ? 0 : std::size_t(37 * (from + 1) + 91 * to);
}

}  // namespace

TEST_CASE("MPI all-to-all: parts larger than the message limit arrive whole and in order",
          "[mpi][comm]") {
  MpiComm comm;
  const int P = comm.size(), me = comm.rank();
  for (const std::size_t limit :
       {std::size_t(1) << 30, std::size_t(7), std::size_t(8), std::size_t(1)}) {
    INFO("max_message_bytes " << limit);
    comm.set_max_message_bytes(limit);
    std::vector<uint64_t> send;
    std::vector<std::size_t> off(std::size_t(P) + 1, 0);
    for (int r = 0; r < P; ++r) {
      for (std::size_t k = 0; k < count(me, r); ++k) send.push_back(item(me, r, k));
      off[std::size_t(r) + 1] = send.size();
    }
    std::vector<std::size_t> recv_off;
    const std::vector<uint64_t> got = comm.all_to_all(send, off, &recv_off);
    std::size_t wrong = 0, at = 0;
    for (int r = 0; r < P; ++r) {
      CHECK(recv_off[std::size_t(r) + 1] - recv_off[std::size_t(r)] == count(r, me));
      for (std::size_t k = 0; k < count(r, me); ++k) wrong += got[at++] != item(r, me, k);
    }
    CHECK(at == got.size());
    CHECK(wrong == 0);
  }
}
