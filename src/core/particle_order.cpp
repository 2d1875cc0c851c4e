#include "core/particle_order.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "core/morton.hpp"
#include "core/parallel_sort.hpp"

namespace mpsph {

std::vector<uint64_t> morton_keys(const ParticleStore& store, const Box& box) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(store.size());
  std::vector<uint64_t> keys(store.size());
  if (n == 0) return keys;

  Vec3d lo = box.lo;
  double edge = std::max({box.size.x, box.size.y, box.size.z});
  if (!box.periodic) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double lx = inf, ly = inf, lz = inf, hx = -inf, hy = -inf, hz = -inf;
#pragma omp parallel for reduction(min : lx, ly, lz) reduction(max : hx, hy, hz)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const Vec3d& x = store.pos[i];
      lx = std::min(lx, x.x), ly = std::min(ly, x.y), lz = std::min(lz, x.z);
      hx = std::max(hx, x.x), hy = std::max(hy, x.y), hz = std::max(hz, x.z);
    }
    lo = {lx, ly, lz};
    edge = std::max({hx - lx, hy - ly, hz - lz});
    // The highest particle lands in the last cell (morton_cell clamps), and a single particle or
    // a degenerate set still gets a positive edge.
    if (!(edge > 0.0)) edge = 1.0;
  }

#pragma omp parallel for
  for (std::ptrdiff_t i = 0; i < n; ++i)
    keys[i] = morton_key(wrap_position(store.pos[i], box), lo, edge);
  return keys;
}

bool order_particles(ParticleStore& store, const Box& box) {
  const std::vector<uint64_t> keys = morton_keys(store, box);
  struct Item {
    uint8_t type;
    uint64_t key;
    std::size_t index;
  };
  const std::size_t n = store.size();
  std::vector<Item> items(n);
  const std::ptrdiff_t n_signed = std::ptrdiff_t(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n_signed; ++i) items[i] = {store.type[i], keys[i], std::size_t(i)};
  // The index as last criterion makes the sort stable (and deterministic on any thread count).
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.type != b.type) return a.type < b.type;
    if (a.key != b.key) return a.key < b.key;
    return a.index < b.index;
  });
  std::vector<std::size_t> perm(n);
  bool moved = false;
  for (std::size_t i = 0; i < n; ++i) {
    perm[i] = items[i].index;
    moved = moved || perm[i] != i;
  }
  if (moved) store.permute(perm);
  return moved;
}

bool layout_needs_sort(const ParticleStore& store) {
  for (std::size_t i = 0; i < store.size(); ++i)
    if (store.type[i] == kRemoved || (i > 0 && store.type[i] < store.type[i - 1])) return true;
  return false;
}

}  // namespace mpsph
