#include "core/particle_order.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "core/error.hpp"
#include "core/parallel_sort.hpp"
#include "core/position_bounds.hpp"
#include "core/sfc_key.hpp"

namespace mpsph {

namespace {

// Keys (core/sfc_key.hpp) of the particles `at[0 .. n)` (store indices; null: 0 .. n - 1) in the
// cube of order_keys() for exactly those particles.
std::vector<uint64_t> keys_of(const ParticleStore& store, const Box& box, const std::size_t* at,
                              std::size_t count) {
  if (count == 0) return {};
  Vec3d lo = box.lo;
  double edge = std::max({box.size.x, box.size.y, box.size.z});
  if (!box.periodic) {
    const PositionBounds b = position_bounds(store.pos.data(), count, at);
    lo = b.lo;
    edge = std::max({b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
    // The highest particle lands in the last cell (the cells clamp), and a single particle or
    // a degenerate set still gets a positive edge.
    if (!(edge > 0.0)) edge = 1.0;
  }

  return order_keys_in(store, box, KeyCube{lo, edge}, at, count);
}

}  // namespace

std::vector<uint64_t> order_keys_in(const ParticleStore& store, const Box& box, const KeyCube& cube,
                                    const std::size_t* at, std::size_t count) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(count);
  std::vector<uint64_t> keys(count);
  auto index = [at](std::ptrdiff_t k) { return at ? at[k] : std::size_t(k); };
#pragma omp parallel for
  for (std::ptrdiff_t k = 0; k < n; ++k)
    keys[std::size_t(k)] = sfc_key(wrap_position(store.pos[index(k)], box), cube.lo, cube.edge);
  return keys;
}

std::vector<uint64_t> order_keys(const ParticleStore& store, const Box& box) {
  return keys_of(store, box, nullptr, store.size());
}

bool order_particles(ParticleStore& store, const Box& box, const std::vector<std::size_t>* subset) {
  const std::size_t n = subset ? subset->size() : store.size();
  const std::size_t* at = subset ? subset->data() : nullptr;
  const std::vector<uint64_t> keys = keys_of(store, box, at, n);
  struct Item {
    uint8_t type;
    uint64_t key;
    std::size_t index;
  };
  std::vector<Item> items(n);
  const std::ptrdiff_t n_signed = std::ptrdiff_t(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n_signed; ++k) {
    const std::size_t i = at ? at[k] : std::size_t(k);
    items[k] = {store.type[i], keys[k], i};
  }
  // The index as last criterion makes the sort stable (and deterministic on any thread count);
  // a subset is ascending, so its store indices order as its positions in it.
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.type != b.type) return a.type < b.type;
    if (a.key != b.key) return a.key < b.key;
    return a.index < b.index;
  });
  std::vector<std::size_t> perm(n);
  bool moved = n != store.size();
#pragma omp parallel for schedule(static) reduction(|| : moved)
  for (std::ptrdiff_t k = 0; k < n_signed; ++k) {
    perm[k] = items[k].index;
    moved = moved || perm[k] != std::size_t(k);
  }
  if (moved) store.permute(perm);
  if (subset) store.resize(n);
  return moved;
}

bool layout_needs_sort(const ParticleStore& store) {
  for (std::size_t i = 0; i < store.size(); ++i)
    if (store.type[i] == kRemoved || (i > 0 && store.type[i] < store.type[i - 1])) return true;
  return false;
}

std::size_t drop_removed(ParticleStore& s) {
  const auto first = std::find(s.type.begin(), s.type.end(), kRemoved);
  const std::size_t keep = std::size_t(first - s.type.begin());
  const std::size_t dropped = s.size() - keep;
  if (dropped == 0) return 0;
  if (!std::all_of(first, s.type.end(), [](uint8_t t) { return t == kRemoved; }))
    throw Error("internal: removed particles are not at the end of the store after the sort");
  s.resize(keep);
  return dropped;
}

}  // namespace mpsph
