// The MPI ranks of the simulation driver (run/mpi/mpi_ranks.hpp): what a restart across ranks
// checks over every rank's part of a checkpoint.
#include <cstdint>
#include <optional>
#include <vector>

#include "catch.hpp"
#include "run/mpi/mpi_ranks.hpp"

using namespace mpsph;

TEST_CASE("MPI ranks: repeated items over every rank's part, without gathering them",
          "[mpi][restart]") {
  const std::unique_ptr<Ranks> ranks = make_mpi_ranks();
  const uint64_t P = uint64_t(ranks->size()), r = uint64_t(ranks->rank());
  // Ids 1..1000 dealt out round robin: none repeated.
  std::vector<uint64_t> ids;
  for (uint64_t id = 1 + r; id <= 1000; id += P) ids.push_back(id);
  CHECK_FALSE(ranks->repeated(ids, 1).has_value());
  // The last rank also holds ids 17 and 900 (rank 0's and another's, or its own on one rank): the
  // smallest repeated one on every rank.
  std::vector<uint64_t> more = ids;
  if (r == P - 1) more.insert(more.end(), {900, 17});
  const auto got = ranks->repeated(more, 1);
  REQUIRE(got.has_value());
  CHECK(*got == std::vector<uint64_t>{17});
  // The largest value is a value like any other.
  std::vector<uint64_t> top;
  if (r == 0) top = {UINT64_MAX, 5};
  if (r == P - 1) top.push_back(UINT64_MAX);
  const auto at_top = ranks->repeated(top, 1);
  REQUIRE(at_top.has_value());
  CHECK(*at_top == std::vector<uint64_t>{UINT64_MAX});
  // Items of three words (positions): (r, 1, 2) on each rank, none repeated; then (0, 1, 2) on
  // every rank (once on one rank: none), and (0, 1, 3) against (0, 1, 2): not equal.
  std::vector<uint64_t> pos = {r, 1, 2, 1000 + r, 0, 0};
  CHECK_FALSE(ranks->repeated(pos, 3).has_value());
  if (r == P - 1) pos.insert(pos.end(), {0, 1, 3, 0, 1, 2});
  const auto twice = ranks->repeated(pos, 3);
  REQUIRE(twice.has_value());
  CHECK(*twice == std::vector<uint64_t>{0, 1, 2});
}
