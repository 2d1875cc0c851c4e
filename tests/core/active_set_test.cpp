// ActiveSet: membership by step end (contains) and by the sorted list (holds); active_subset.
#include "core/active_set.hpp"

#include <cstdint>
#include <vector>

#include "catch.hpp"

using namespace mpsph;

TEST_CASE("ActiveSet::holds finds exactly the listed store indices", "[core]") {
  const std::vector<uint32_t> list = {0, 3, 4, 9, 17, 18, 40};
  ActiveSet a;
  a.index = list.data();
  a.n = list.size();
  a.n_gas = 3;
  a.tick = 5;
  std::size_t found = 0;
  for (std::size_t i = 0; i < 50; ++i) {
    bool listed = false;
    for (uint32_t k : list) listed = listed || k == i;
    CHECK(a.holds(i) == listed);
    found += a.holds(i);
  }
  CHECK(found == list.size());
  const ActiveSet empty{list.data(), 0, 0, 5};
  CHECK_FALSE(empty.holds(0));
  CHECK(ActiveSet{}.holds(123));  // all particles
}

TEST_CASE("active_subset: an empty list is an empty set, not every particle", "[core][active]") {
  const std::vector<uint32_t> none;
  const ActiveSet a = active_subset(none, 0, 7);
  CHECK_FALSE(a.all());
  CHECK(a.count(100) == 0);
  CHECK(a.gas_count(40) == 0);
  CHECK_FALSE(a.holds(0));
  CHECK(a.tick == 7);
  const std::vector<uint32_t> some = {2, 5, 41};
  const ActiveSet b = active_subset(some, 2, 9);
  CHECK(b.count(100) == 3);
  CHECK(b.gas_count(40) == 2);
  CHECK(b[2] == 41);
  CHECK(b.holds(5));
  CHECK_FALSE(b.holds(4));
}
