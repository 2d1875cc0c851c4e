#include "parallel/sph_halo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/morton.hpp"
#include "core/parallel_sort.hpp"
#include "sph/neighbour_search.hpp"  // kTreeRadiusSlack

namespace mpsph {

namespace {

std::size_t group_size(std::size_t n_gas, std::size_t max_boxes) {
  return std::max<std::size_t>(1, (n_gas + max_boxes - 1) / max_boxes);
}

}  // namespace

std::vector<SearchBox> search_boxes(const ParticleStore& store, std::size_t n_gas,
                                    const std::vector<double>& radius, const Box& box,
                                    std::size_t max_boxes) {
  std::vector<SearchBox> out;
  if (n_gas == 0) return out;
  const std::size_t group = group_size(n_gas, max_boxes);
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < n_gas; b += group) {
    SearchBox s{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0};
    for (std::size_t i = b; i < std::min(n_gas, b + group); ++i) {
      const Vec3d x = wrap_position(store.pos[i], box);
      s.lo = {std::min(s.lo.x, x.x), std::min(s.lo.y, x.y), std::min(s.lo.z, x.z)};
      s.hi = {std::max(s.hi.x, x.x), std::max(s.hi.y, x.y), std::max(s.hi.z, x.z)};
      s.radius = std::max(s.radius, radius[i]);
    }
    out.push_back(s);
  }
  return out;
}

namespace {

// Gap between intervals [a0, a1] and [b0, b1]; periodic with length len: the smallest gap over
// the images b + k len, k = -1, 0, 1 (both intervals lie in the box after wrapping).
double gap(double a0, double a1, double b0, double b1, bool periodic, double len) {
  auto one = [&](double s) { return std::max({0.0, b0 + s - a1, a0 - (b1 + s)}); };
  double g = one(0.0);
  if (periodic) g = std::min({g, one(len), one(-len)});
  return g;
}

}  // namespace

double box_distance(const Vec3d& a_lo, const Vec3d& a_hi, const Vec3d& b_lo, const Vec3d& b_hi,
                    const Box& box) {
  const double gx = gap(a_lo.x, a_hi.x, b_lo.x, b_hi.x, box.periodic, box.size.x);
  const double gy = gap(a_lo.y, a_hi.y, b_lo.y, b_hi.y, box.periodic, box.size.y);
  const double gz = gap(a_lo.z, a_hi.z, b_lo.z, b_hi.z, box.periodic, box.size.z);
  return std::sqrt(gx * gx + gy * gy + gz * gz);
}

std::vector<std::vector<uint32_t>> halo_members(const ParticleStore& store, std::size_t n_gas,
                                                const std::vector<double>& radius,
                                                const std::vector<double>& reach, const Box& box,
                                                const MpiComm& comm) {
  constexpr std::size_t kMaxBoxes = 512;
  std::vector<std::size_t> offsets;
  const std::vector<SearchBox> remote =
      comm.all_gather(search_boxes(store, n_gas, radius, box, kMaxBoxes), &offsets);
  // This rank's particles in the same groups, with their reach, so that whole groups are ruled
  // out by one box test.
  const std::vector<double> no_reach(n_gas, 0.0);
  const std::vector<double>& own = reach.empty() ? no_reach : reach;
  const std::vector<SearchBox> mine = search_boxes(store, n_gas, own, box, kMaxBoxes);
  const std::size_t group = group_size(n_gas, kMaxBoxes);
  constexpr double slack = 1.0 + kTreeRadiusSlack;

  std::vector<std::vector<uint32_t>> to_rank(comm.size());
  std::vector<uint8_t> taken(n_gas);
  const std::ptrdiff_t n_groups = std::ptrdiff_t(mine.size());
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) continue;
    std::fill(taken.begin(), taken.end(), 0);
    // Each thread tests its own groups (and marks only their particles) against r's boxes.
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t g = 0; g < n_groups; ++g) {
      const SearchBox& mg = mine[std::size_t(g)];
      for (std::size_t b = offsets[r]; b < offsets[r + 1]; ++b) {
        const SearchBox& rb = remote[b];
        if (box_distance(mg.lo, mg.hi, rb.lo, rb.hi, box) > std::max(rb.radius, mg.radius) * slack)
          continue;
        for (std::size_t j = std::size_t(g) * group;
             j < std::min(n_gas, (std::size_t(g) + 1) * group); ++j) {
          if (taken[j]) continue;
          const Vec3d x = wrap_position(store.pos[j], box);
          if (box_distance(x, x, rb.lo, rb.hi, box) <= std::max(rb.radius, own[j]) * slack)
            taken[j] = 1;
        }
      }
    }
    for (std::size_t j = 0; j < n_gas; ++j)
      if (taken[j]) to_rank[r].push_back(uint32_t(j));
  }
  return to_rank;
}

GhostLayout order_with_ghosts(ParticleStore& store, std::size_t n_local, const Box& box,
                              const KeyCube& cube, bool interleave) {
  GhostLayout lay;
  lay.n_local = n_local;
  const std::size_t n = store.size();
  std::size_t n_lg = 0;
  while (n_lg < n_local && store.type[n_lg] == kGas) ++n_lg;
  lay.n_local_gas = n_lg;

  // Gas: the local gas [0, n_lg) and the ghosts [n_local, n), by (key, id); or, without
  // `interleave`, the local gas as it is and the ghosts by (key, id) after it.
  std::vector<std::size_t> gas;
  if (interleave) {
    gas.resize(n_lg);
    std::iota(gas.begin(), gas.end(), std::size_t{0});
  }
  for (std::size_t i = n_local; i < n; ++i) gas.push_back(i);
  // (key, id, index) in one array: the sort then reads no other memory.
  struct Item {
    uint64_t key, id;
    std::size_t index;
  };
  std::vector<Item> items(gas.size());
  const std::ptrdiff_t n_gas = std::ptrdiff_t(gas.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n_gas; ++k) {
    const std::size_t i = gas[std::size_t(k)];
    items[std::size_t(k)] = {morton_key(wrap_position(store.pos[i], box), cube.lo, cube.edge),
                             store.id[i], i};
  }
  // Ids are unique: the order is total, the same on any number of threads.
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  });
  for (std::size_t k = 0; k < items.size(); ++k) gas[k] = items[k].index;
  std::vector<std::size_t> perm;
  perm.reserve(n);
  if (!interleave) {
    for (std::size_t i = 0; i < n_lg; ++i) perm.push_back(i);
    perm.insert(perm.end(), gas.begin(), gas.end());
    gas.insert(gas.begin(), perm.begin(), perm.begin() + std::ptrdiff_t(n_lg));
    // The local non-gas particles from slot n_lg + n_ghosts on: those already there stay, the
    // ones the ghosts displace go to the end.
    const std::size_t n_ghosts = n - n_local, n_ng = n_local - n_lg;
    const std::size_t displaced = std::min(n_ghosts, n_ng);
    for (std::size_t i = n_lg + displaced; i < n_local; ++i) perm.push_back(i);
    for (std::size_t i = n_lg; i < n_lg + displaced; ++i) perm.push_back(i);
  } else {
    perm = gas;
    for (std::size_t i = n_lg; i < n_local; ++i) perm.push_back(i);
  }

  lay.local_slot.resize(n_local);
  lay.ghost_slot.resize(n - n_local);
  for (std::size_t s = 0; s < n; ++s) {
    if (perm[s] < n_local)
      lay.local_slot[perm[s]] = s;
    else
      lay.ghost_slot[perm[s] - n_local] = s;
  }
  for (std::size_t s = 0; s < gas.size(); ++s)
    if (gas[s] < n_local) lay.local_gas.push_back(uint32_t(s));
  store.permute(perm);
  return lay;
}

void remove_ghosts(ParticleStore& store, const GhostLayout& layout) {
  store.permute(layout.local_slot);
  store.resize(layout.n_local);
}

}  // namespace mpsph
