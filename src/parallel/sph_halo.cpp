#include "parallel/sph_halo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/parallel_sort.hpp"
#include "core/select_indices.hpp"
#include "sph/box_levels.hpp"
#include "sph/neighbour_search.hpp"  // kTreeRadiusSlack

namespace mpsph {

namespace {

// Boxes of consecutive groups of `group` particles of the gas [0, count), each with the largest
// radius[i] of its particles (radius null: 0): the candidates' groups of halo_members (the store
// is in key order: a group is compact but for the key order's jumps, which only cost time there).
std::vector<SearchBox> group_boxes(const ParticleStore& store, std::size_t count,
                                   const double* radius, const Box& box, std::size_t group) {
  const std::size_t n_boxes = (count + group - 1) / group;
  std::vector<SearchBox> out(n_boxes);
  constexpr double inf = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) if (count > 65536)
  for (std::ptrdiff_t g = 0; g < std::ptrdiff_t(n_boxes); ++g) {
    SearchBox s{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0};
    for (std::size_t i = std::size_t(g) * group; i < std::min(count, std::size_t(g + 1) * group);
         ++i) {
      const Vec3d x = wrap_position(store.pos[i], box);
      s.lo = {std::min(s.lo.x, x.x), std::min(s.lo.y, x.y), std::min(s.lo.z, x.z)};
      s.hi = {std::max(s.hi.x, x.x), std::max(s.hi.y, x.y), std::max(s.hi.z, x.z)};
      if (radius) s.radius = std::max(s.radius, radius[i]);
    }
    out[std::size_t(g)] = s;
  }
  return out;
}

// The particles at[0, count) (null: 0 .. count - 1) as grow_boxes takes them.
struct StorePoints {
  const ParticleStore& store;
  const uint32_t* at;
  const double* scale;
  const double* radius;  // null: 0
  const Box& box;
  BoxPoint operator()(std::size_t k) const {
    const std::size_t i = at ? at[k] : k;
    return {wrap_position(store.pos[i], box), scale[i], radius ? radius[i] : 0.0};
  }
};

struct AppendBox {
  std::vector<SearchBox>& out;
  void operator()(const SearchBox& b) { out.push_back(b); }
};

// The boxes of `points` [0, count) by `rule`, chunk by chunk on the threads, in order.
std::vector<SearchBox> grow_all(const StorePoints& points, std::size_t count, BoxRule rule) {
  const std::size_t n_chunks = (count + rule.chunk - 1) / rule.chunk;
  std::vector<std::vector<SearchBox>> parts(n_chunks);
#pragma omp parallel for schedule(static) if (count > 65536)
  for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(n_chunks); ++c) {
    AppendBox emit{parts[std::size_t(c)]};
    grow_boxes(points, std::size_t(c) * rule.chunk,
               std::min(count, std::size_t(c + 1) * rule.chunk), rule.stretch, emit);
  }
  std::vector<SearchBox> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

std::vector<SearchBox> search_boxes(const ParticleStore& store, const uint32_t* at,
                                    std::size_t count, const std::vector<double>& radius,
                                    const Box& box) {
  return grow_all({store, at, radius.data(), radius.data(), box}, count, kSearchBoxes);
}

std::vector<SearchBox> domain_boxes(const ParticleStore& store, std::size_t n_gas,
                                    const std::vector<double>& radius,
                                    const std::vector<double>& reach, const Box& box) {
  return grow_all({store, nullptr, radius.data(), reach.empty() ? nullptr : reach.data(), box},
                  n_gas, kDomainBoxes);
}

double box_distance(const Vec3d& a_lo, const Vec3d& a_hi, const Vec3d& b_lo, const Vec3d& b_hi,
                    const Box& box) {
  const double gx = detail::interval_gap(a_lo.x, a_hi.x, b_lo.x, b_hi.x, box.periodic, box.size.x);
  const double gy = detail::interval_gap(a_lo.y, a_hi.y, b_lo.y, b_hi.y, box.periodic, box.size.y);
  const double gz = detail::interval_gap(a_lo.z, a_hi.z, b_lo.z, b_hi.z, box.periodic, box.size.z);
  return std::sqrt(gx * gx + gy * gy + gz * gz);
}

std::vector<std::vector<uint32_t>> halo_members(const ParticleStore& store, std::size_t n_gas,
                                                const std::vector<double>& radius,
                                                const std::vector<double>& reach, const Box& box,
                                                const MpiComm& comm,
                                                const std::vector<uint32_t>* searchers, bool self) {
  constexpr double slack = kTreeRadiusSlack;
  const double* own = reach.empty() ? nullptr : reach.data();
  // Every rank's domain boxes to every rank; to each other rank, this rank's search boxes near
  // its domain boxes (the others cannot select anything there).
  std::vector<std::size_t> domain_off;
  const std::vector<SearchBox> domains =
      comm.all_gather(domain_boxes(store, n_gas, radius, reach, box), &domain_off);
  const std::size_t n_search = searchers ? searchers->size() : n_gas;
  const std::vector<SearchBox> own_search =
      search_boxes(store, searchers ? searchers->data() : nullptr, n_search, radius, box);
  std::vector<SearchBox> send;
  std::vector<std::size_t> send_off(std::size_t(comm.size()) + 1, 0);
  std::vector<uint8_t> near(own_search.size());
  for (int r = 0; r < comm.size(); ++r) {
    send_off[std::size_t(r) + 1] = send_off[std::size_t(r)];
    if (r == comm.rank() || domain_off[std::size_t(r)] == domain_off[std::size_t(r) + 1]) continue;
    const BoxLevels theirs = box_levels(
        std::vector<SearchBox>(domains.begin() + std::ptrdiff_t(domain_off[std::size_t(r)]),
                               domains.begin() + std::ptrdiff_t(domain_off[std::size_t(r) + 1])));
#pragma omp parallel for schedule(static) if (own_search.size() > 4096)
    for (std::ptrdiff_t f = 0; f < std::ptrdiff_t(own_search.size()); ++f) {
      const SearchBox& b = own_search[std::size_t(f)];
      near[std::size_t(f)] = any_box_near(theirs, b.lo, b.hi, b.radius, slack, box) ? 1 : 0;
    }
    for (std::size_t f = 0; f < own_search.size(); ++f)
      if (near[f]) send.push_back(own_search[f]);
    send_off[std::size_t(r) + 1] = send.size();
  }
  std::vector<std::size_t> offsets;
  const std::vector<SearchBox> remote = comm.all_to_all(send, send_off, &offsets);

  // The candidates - every local gas particle, with its reach - in fine boxes of kFine
  // consecutive particles (the store is in key order: each is compact), and coarse groups of
  // kFinePerCoarse fine boxes: a coarse group meets the received search boxes through their
  // levels (sph/box_levels.hpp), then the fine boxes the boxes it may reach, then the particles
  // of the fine boxes. A box test bounds the distance of every particle inside it from below, so
  // a box out of reach rules out all of them: the particles sent are those of the rule.
  constexpr std::size_t kFine = 64, kFinePerCoarse = 64;
  const std::vector<SearchBox> fine = group_boxes(store, n_gas, own, box, kFine);
  const std::vector<SearchBox> coarse = box_unions(fine, kFinePerCoarse);
  const std::size_t n_coarse = coarse.size();

  std::vector<std::vector<uint32_t>> to_rank(comm.size());
  std::vector<std::vector<uint32_t>> part(n_coarse);
  for (int r = 0; r < comm.size(); ++r) {
    const bool me = r == comm.rank();
    if (me && !self) continue;
    // This rank's own searchers: all its search boxes.
    const BoxLevels theirs = box_levels(
        me ? own_search
           : std::vector<SearchBox>(remote.begin() + std::ptrdiff_t(offsets[std::size_t(r)]),
                                    remote.begin() + std::ptrdiff_t(offsets[std::size_t(r) + 1])));
    if (theirs.boxes.empty()) continue;
      // Each thread takes whole coarse groups and lists their particles for r, in store order.
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(n_coarse); ++c) {
      std::vector<uint32_t>& list = part[std::size_t(c)];
      list.clear();
      std::vector<std::size_t> near_c, near_f;
      const SearchBox& cb = coarse[std::size_t(c)];
      boxes_near(theirs, cb.lo, cb.hi, cb.radius, slack, box, near_c);
      if (near_c.empty()) continue;
      for (std::size_t f = std::size_t(c) * kFinePerCoarse;
           f < std::min(fine.size(), std::size_t(c + 1) * kFinePerCoarse); ++f) {
        near_f.clear();
        for (const std::size_t b : near_c)
          if (box_near(fine[f].lo, fine[f].hi, fine[f].radius, theirs.boxes[b], slack, box))
            near_f.push_back(b);
        if (near_f.empty()) continue;
        for (std::size_t j = f * kFine; j < std::min(n_gas, (f + 1) * kFine); ++j) {
          const Vec3d x = wrap_position(store.pos[j], box);
          const double own_j = own ? own[j] : 0.0;
          for (const std::size_t b : near_f) {
            if (box_near(x, x, own_j, theirs.boxes[b], slack, box)) {
              list.push_back(uint32_t(j));
              break;
            }
          }
        }
      }
    }
    std::size_t total = 0;
    for (const auto& l : part) total += l.size();
    to_rank[r].reserve(total);
    for (const auto& l : part) to_rank[r].insert(to_rank[r].end(), l.begin(), l.end());
  }
  return to_rank;
}

GhostLayout order_with_ghosts(ParticleStore& store, std::size_t n_local,
                              const std::vector<uint64_t>& keys, bool interleave) {
  GhostLayout lay;
  lay.n_local = n_local;
  const std::size_t n = store.size();
  const std::size_t n_lg =
      std::size_t(std::find_if(store.type.begin(), store.type.begin() + std::ptrdiff_t(n_local),
                               [](uint8_t t) { return t != kGas; }) -
                  store.type.begin());
  lay.n_local_gas = n_lg;
  const std::size_t n_ghosts = n - n_local, n_ng = n_local - n_lg;
  if (keys.size() != n)
    throw Error("order_with_ghosts: " + std::to_string(keys.size()) + " keys for " +
                std::to_string(n) + " particles");

  // Gas to sort: the local gas [0, n_lg) and the ghosts [n_local, n), by (key, id); or, without
  // `interleave`, the ghosts only (the local gas stays as it is, before them).
  const std::size_t first_sorted = interleave ? n_lg : 0;
  const std::size_t n_sorted = first_sorted + n_ghosts;
  auto store_index = [&](std::size_t k) {
    return k < first_sorted ? k : n_local + k - first_sorted;
  };
  // (key, id, index) in one array: the sort then reads no other memory.
  struct Item {
    uint64_t key, id;
    std::size_t index;
  };
  std::vector<Item> items(n_sorted);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(n_sorted); ++k) {
    const std::size_t i = store_index(std::size_t(k));
    items[std::size_t(k)] = {keys[i], store.id[i], i};
  }
  // Ids are unique: the order is total, the same on any number of threads.
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  });

  // perm[s]: the particle at slot s. Gas first: [0, n_lg + n_ghosts) - interleaved: the sorted
  // items; else the local gas in place, then the sorted ghosts. Then the local non-gas particles:
  // interleaved, all in their order; else those already past the gas stay, and the ones the
  // ghosts displace go to the end.
  const std::size_t n_gas_all = n_lg + n_ghosts;
  const std::size_t displaced = interleave ? n_ng : std::min(n_ghosts, n_ng);
  std::vector<std::size_t> perm(n);
  const std::size_t item_slot = interleave ? 0 : n_lg;
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t s_signed = 0; s_signed < std::ptrdiff_t(n); ++s_signed) {
    const std::size_t s = std::size_t(s_signed);
    if (s < item_slot)
      perm[s] = s;
    else if (s < n_gas_all)
      perm[s] = items[s - item_slot].index;
    else if (s < n - displaced)
      perm[s] = s - n_gas_all + n_lg + displaced;  // the local non-gas that stay in order
    else
      perm[s] = s - (n - displaced) + n_lg;  // the displaced ones, in order
  }

  lay.local_slot.resize(n_local);
  lay.ghost_slot.resize(n_ghosts);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(n); ++s) {
    const std::size_t i = perm[std::size_t(s)];
    if (i < n_local)
      lay.local_slot[i] = std::size_t(s);
    else
      lay.ghost_slot[i - n_local] = std::size_t(s);
  }
  lay.local_gas =
      select_indices<uint32_t>(0, n_gas_all, [&](std::size_t s) { return perm[s] < n_local; });
  store.permute(perm);
  return lay;
}

GhostLayout work_layout(const ParticleStore& store, const std::vector<uint32_t>& members,
                        const std::vector<uint64_t>& keys, const std::vector<KeyId>& ghost_order) {
  const std::size_t n_m = members.size(), n = n_m + ghost_order.size();
  struct Item {
    uint64_t key, id;
    std::size_t from;  // < n_m: member from; else ghost from - n_m
  };
  std::vector<Item> items(n);
  for (std::size_t k = 0; k < n_m; ++k) items[k] = {keys[members[k]], store.id[members[k]], k};
  for (std::size_t m = 0; m < ghost_order.size(); ++m)
    items[n_m + m] = {ghost_order[m].key, ghost_order[m].id, n_m + m};
  // Ids are unique: the order is total, the same on any number of threads.
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  });
  GhostLayout lay;
  lay.n_local = store.size();
  lay.n_local_gas = store.n_gas();
  lay.local_slot.assign(store.size(), kNotInWork);
  lay.ghost_slot.resize(ghost_order.size());
  lay.local_gas.reserve(n_m);
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t f = items[s].from;
    if (f < n_m) {
      lay.local_slot[members[f]] = s;
      lay.local_gas.push_back(uint32_t(s));
    } else {
      lay.ghost_slot[f - n_m] = s;
    }
  }
  return lay;
}

void remove_ghosts(ParticleStore& store, const GhostLayout& layout) {
  store.permute(layout.local_slot);
  store.resize(layout.n_local);
}

}  // namespace mpsph
