// The MPI ranks of the simulation driver (run/mpi/mpi_ranks.hpp): what a restart across ranks
// checks over every rank's part of a checkpoint.
#include <cstdint>
#include <optional>
#include <vector>

#include "catch.hpp"
#include "run/mpi/mpi_ranks.hpp"

using namespace mpsph;

TEST_CASE("MPI ranks: repeated values over every rank's part, without gathering them",
          "[mpi][restart]") {
  const std::unique_ptr<Ranks> ranks = make_mpi_ranks();
  const uint64_t P = uint64_t(ranks->size()), r = uint64_t(ranks->rank());
  // Ids 1..1000 dealt out round robin: none repeated.
  std::vector<uint64_t> ids;
  for (uint64_t id = 1 + r; id <= 1000; id += P) ids.push_back(id);
  CHECK_FALSE(ranks->repeated(ids).has_value());
  // The last rank also holds ids 17 and 900 (rank 0's and another's, or its own on one rank): the
  // smallest repeated one on every rank.
  std::vector<uint64_t> more = ids;
  if (r == P - 1) more.insert(more.end(), {900, 17});
  const std::optional<uint64_t> got = ranks->repeated(more);
  REQUIRE(got.has_value());
  CHECK(*got == 17);
  // The largest value is a value like any other.
  std::vector<uint64_t> top;
  if (r == 0) top = {UINT64_MAX, 5};
  if (r == P - 1) top.push_back(UINT64_MAX);
  const std::optional<uint64_t> at_top = ranks->repeated(top);
  REQUIRE(at_top.has_value());
  CHECK(*at_top == UINT64_MAX);
}
