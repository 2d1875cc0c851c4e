// The group of a sink candidate (the gas within h_acc) from the grid (sinks.hpp sink_group) against
// a scan of all gas (sink_group_member for every j): the same members, in ascending store index,
// for every gas particle and for points that are not gas, on random particles in open and periodic
// boxes, with particles on cell faces, at h_acc (to the last bit) across cell faces, on the
// periodic wrap, and periodic boxes of 1 to 4 cells per side. Exact: the grid only chooses which
// pairs to test, each pair is tested by the same function. The potential-minimum test on the grid
// (sink_potential_minimum_on_grid) gives the verdict of the listed group for every centre.
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/particles_near.hpp"
#include "core/rng.hpp"
#include "sinks/sinks.hpp"

using namespace mpsph;

namespace {

std::vector<uint32_t> brute_group(const ParticleView& p, std::size_t i, const Box& box,
                                  double h_acc) {
  std::vector<uint32_t> g;
  for (std::size_t j = 0; j < p.n_gas; ++j)
    if (sink_group_member(p, i, j, box, h_acc * h_acc)) g.push_back(uint32_t(j));
  return g;
}

// n random particles in [lo, lo + size)^3 (stream `seed`), then the edge cases, all gas except
// every 13th (a sink) and every 17th (removed: not in any group).
ParticleStore cloud(std::size_t n, const Vec3d& lo, double size, double h_acc, uint64_t seed) {
  std::vector<Vec3d> x;
  for (std::size_t i = 0; i < n; ++i)
    x.push_back(lo + size * Vec3d{random_uniform(i, seed, 1), random_uniform(i, seed, 2),
                                  random_uniform(i, seed, 3)});
  // On cell faces of the grid (its origin is the gas box's corner, or lo when periodic) and at
  // h_acc across them, one ulp either way.
  const double w = feedback_range_cell(h_acc);
  for (int m = 0; m < 4; ++m) {
    const double f = lo.x + w * m;
    x.push_back({f, lo.y + 0.5 * size, lo.z + 0.5 * size});
    for (double d : {h_acc, std::nextafter(h_acc, 0.0), std::nextafter(h_acc, 2 * h_acc)}) {
      x.push_back({f + d, lo.y + 0.5 * size, lo.z + 0.5 * size});
      x.push_back({f - d, lo.y + 0.5 * size, lo.z + 0.5 * size});
      x.push_back({f, lo.y + 0.5 * size + d, lo.z + 0.5 * size});
    }
  }
  // On the far faces (periodic: the wrap; lo + size itself may come out of wrap_position's
  // rounding) and at h_acc across the wrap.
  const double top = lo.x + size;
  for (double t : {top, std::nextafter(top, lo.x), lo.x, lo.x + 0.5 * h_acc})
    x.push_back({t, lo.y, lo.z + size - 0.25 * h_acc});
  x.push_back({lo.x + size - 0.5 * h_acc, lo.y + size - 0.5 * h_acc, lo.z});
  ParticleStore s;
  s.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    s.pos[i] = x[i];
    s.id[i] = 1000 + i;
    s.mass[i] = 1.0;
    s.type[i] = i % 13 == 5 ? uint8_t(kSink) : (i % 17 == 3 ? kRemoved : uint8_t(kGas));
    // A potential with many local minima on the scale of h_acc, and ties: rounded to 1/8.
    s.pot[i] = std::round(8.0 * std::sin(20.0 * x[i].x) * std::cos(17.0 * x[i].y)) / 8.0 +
               0.01 * std::sin(31.0 * x[i].z);
  }
  return s;
}

void check_all(ParticleStore& s, const Box& box, double h_acc, const std::string& what) {
  INFO(what);
  const ParticleView p = s.view();
  const HostGasGrid g = build_sink_grid(p, box, h_acc);
  std::size_t pairs = 0, max_k = 0;
  std::size_t minima = 0;
  for (std::size_t i = 0; i < p.n; ++i) {  // gas, sinks and removed particles as centres
    const std::vector<uint32_t> grid = sink_group(p, g, i, box, h_acc);
    const std::vector<uint32_t> brute = brute_group(p, i, box, h_acc);
    INFO("centre " << i);
    REQUIRE(grid == brute);
    // The potential test on the grid without the list: the verdict of the listed group.
    const bool minimum = sink_potential_minimum(p, brute.data(), int(brute.size()), i);
    REQUIRE(sink_potential_minimum_on_grid(p, g, i, box, h_acc) == minimum);
    minima += minimum;
    pairs += brute.size();
    max_k = std::max(max_k, brute.size());
  }
  // A grid over only the gas within h_acc of some centres (sink_step's, over its candidates)
  // gives those centres the same groups and verdicts.
  std::vector<uint32_t> centres;
  std::vector<Vec3d> at;
  for (std::size_t i = 0; i < p.n; i += 7) centres.push_back(uint32_t(i)), at.push_back(p.pos[i]);
  const std::vector<uint32_t> near = particles_near(p, 0, p.n_gas, kGas, at, h_acc, box);
  const HostGasGrid sub = build_sink_grid(p, box, h_acc, &near);
  CHECK(near.size() < p.n_gas);
  for (uint32_t i : centres) {
    INFO("centre " << i << " on the grid of the centres' neighbourhoods");
    REQUIRE(sink_group(p, sub, i, box, h_acc) == brute_group(p, i, box, h_acc));
    REQUIRE(sink_potential_minimum_on_grid(p, sub, i, box, h_acc) ==
            sink_potential_minimum_on_grid(p, g, i, box, h_acc));
  }
  // The cases are not empty: groups of several members exist, and some centres are minima of
  // their groups' potential and some are not.
  CHECK(max_k >= 3);
  CHECK(minima > 0);
  CHECK(minima < p.n);
  CHECK(pairs > p.n);
}

}  // namespace

TEST_CASE("sink groups: the grid finds exactly the gas a scan of all gas finds", "[sinks]") {
  const double h_acc = 0.1;
  SECTION("open box") {
    ParticleStore s = cloud(3000, {-0.7, 0.2, 1.3}, 1.0, h_acc, 1);
    check_all(s, Box{}, h_acc, "open");
  }
  SECTION("open box, gas in a slab thinner than a cell") {
    ParticleStore s = cloud(400, {0, 0, 0}, 0.5, h_acc, 2);
    for (std::size_t i = 0; i < s.size(); ++i) s.pos[i].z = 0.01 * s.pos[i].z;
    check_all(s, Box{}, h_acc, "slab");
  }
  SECTION("periodic boxes of 1 to 4 cells per side and a large one") {
    for (double size : {0.15, 0.25, 0.35, 0.45, 1.0}) {
      Box box;
      box.periodic = true;
      box.lo = {-0.3, 0.1, 2.0};
      box.size = {size, size, size};
      const std::size_t n = size < 0.5 ? 200 : 3000;
      ParticleStore s = cloud(n, box.lo, size, h_acc, 3);
      check_all(s, box, h_acc, "periodic " + std::to_string(size));
    }
  }
  SECTION("periodic box with unequal sides") {
    Box box;
    box.periodic = true;
    box.lo = {0, 0, 0};
    box.size = {1.0, 0.22, 0.5};
    ParticleStore s = cloud(1500, box.lo, 1.0, h_acc, 4);
    for (std::size_t i = 0; i < s.size(); ++i) s.pos[i] = wrap_position(s.pos[i], box);
    check_all(s, box, h_acc, "unequal");
  }
}
