#include "parallel/domain_decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/parallel_sort.hpp"
#include "core/particle_cost.hpp"
#include "core/particle_order.hpp"
#include "core/position_bounds.hpp"
#include "parallel/particle_exchange.hpp"

namespace mpsph {

KeyCube global_key_cube(const ParticleStore& store, const Box& box, const MpiComm& comm) {
  if (box.periodic) return global_key_cube(Vec3d{}, Vec3d{}, box, comm);
  // The same cube as core/particle_order.cpp builds from all particles of one process.
  const PositionBounds b = position_bounds(store.pos.data(), store.size());
  return global_key_cube(b.lo, b.hi, box, comm);
}

KeyCube global_key_cube(const Vec3d& lo, const Vec3d& hi, const Box& box, const MpiComm& comm) {
  KeyCube c;
  if (box.periodic) {
    c.lo = box.lo;
    c.edge = std::max({box.size.x, box.size.y, box.size.z});
    return c;
  }
  std::vector<double> both = {lo.x, lo.y, lo.z, -hi.x, -hi.y, -hi.z};
  comm.min(both);
  c.lo = {both[0], both[1], both[2]};
  c.edge = std::max({-both[3] - both[0], -both[4] - both[1], -both[5] - both[2]});
  if (!(c.edge > 0.0)) c.edge = 1.0;
  return c;
}

std::vector<uint64_t> sfc_keys(const ParticleStore& store, const Box& box, const KeyCube& cube) {
  return order_keys_in(store, box, cube, nullptr, store.size());
}

int DomainCuts::owner(uint64_t key) const {
  return int(std::upper_bound(begin.begin(), begin.end(), key) - begin.begin()) - 1;
}

namespace {

double weight_of(const std::vector<double>& weights, std::size_t i) {
  return weights.empty() ? 1.0 : weights[i];
}

// The owner of every key under `cuts` (on the OpenMP threads).
std::vector<int> owners(const std::vector<uint64_t>& keys, const DomainCuts& cuts) {
  std::vector<int> dest(keys.size());
  const std::ptrdiff_t n = std::ptrdiff_t(keys.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) dest[std::size_t(i)] = cuts.owner(keys[std::size_t(i)]);
  return dest;
}

// The imbalance of the ranks' loads when this rank carries `weight` (collective): that of the
// particles where they are, before a migration.
double rank_imbalance(double weight, const MpiComm& comm) {
  std::vector<double> loads(std::size_t(comm.size()), 0.0);
  loads[std::size_t(comm.rank())] = weight;
  comm.sum(loads);
  return load_imbalance(loads);
}

// Total weight on each rank when particle i goes to rank dest[i] (collective). Summed in store
// order: the same sums on any number of threads.
std::vector<double> loads_of(const std::vector<int>& dest, const std::vector<double>& weights,
                             const MpiComm& comm) {
  std::vector<double> loads(comm.size(), 0.0);
  for (std::size_t i = 0; i < dest.size(); ++i)
    loads[std::size_t(dest[i])] += weight_of(weights, i);
  comm.sum(loads);
  return loads;
}

}  // namespace

DomainCuts balanced_cuts(const std::vector<uint64_t>& keys, const std::vector<double>& weights,
                         const MpiComm& comm) {
  const std::size_t n = keys.size();
  // (key, index) in one array: the sort then reads no other memory.
  struct Item {
    uint64_t key;
    std::size_t index;
  };
  std::vector<Item> items(n);
  const std::ptrdiff_t n_signed = std::ptrdiff_t(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n_signed; ++k)
    items[std::size_t(k)] = {keys[std::size_t(k)], std::size_t(k)};
  parallel_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.key != b.key ? a.key < b.key : a.index < b.index;
  });
  std::vector<uint64_t> sorted(n);
  std::vector<double> prefix(n + 1, 0.0);  // weight of the first k sorted keys
  for (std::size_t k = 0; k < n; ++k) {
    sorted[k] = items[k].key;
    prefix[k + 1] = prefix[k] + weight_of(weights, items[k].index);
  }
  return search_cuts(
      [&](const std::vector<uint64_t>& mids, std::vector<double>& below) {
        for (std::size_t j = 0; j < mids.size(); ++j)
          below[j] = prefix[std::size_t(std::lower_bound(sorted.begin(), sorted.end(), mids[j]) -
                                        sorted.begin())];
      },
      prefix[n], comm);
}

DomainCuts search_cuts(const WeightBelow& below_of, double local_total, const MpiComm& comm,
                       std::size_t max_candidates) {
  const int p = comm.size();
  const double total = comm.sum(local_total);
  // K parts per step: 16, halved while (P - 1)(K - 1) candidates would pass max_candidates.
  uint64_t ways = 16;
  while (ways > 2 && std::size_t(p - 1) * (ways - 1) > max_candidates) ways /= 2;
  // Cut r (1 <= r < P): the smallest key c with W(keys < c) >= r W / P. Invariant: W(< hi) >=
  // target and W(< c) < target for every c < lo. A step's candidates m_t = lo + floor(L t / K),
  // 1 <= t < K (L = hi - lo), leave [lo, m_1], [m_{t-1} + 1, m_t] or [m_{K-1} + 1, hi]: at most
  // floor(L / K) long, so the steps with K^steps > 2^63 (ceil(64 / log2 K) of them) close any
  // interval of L <= 2^63, the same number on every rank whatever its sums.
  std::vector<uint64_t> lo(p, 0), hi(p, kKeyEnd);
  const std::size_t n_cand = std::size_t(p - 1) * std::size_t(ways - 1);
  std::vector<uint64_t> cand(n_cand);
  std::vector<double> below(n_cand);
  auto candidate = [&](int r, uint64_t t) {  // m_t of cut r
    const uint64_t L = hi[r] - lo[r];
    return lo[r] + uint64_t((static_cast<unsigned __int128>(L) * t) / ways);
  };
  int steps = 0;
  for (unsigned __int128 span = 1; span <= kKeyEnd; span *= ways) ++steps;
  for (int step = 0; step < steps && p > 1; ++step) {
    for (int r = 1; r < p; ++r)
      for (uint64_t t = 1; t < ways; ++t)
        cand[std::size_t(r - 1) * (ways - 1) + (t - 1)] = candidate(r, t);
    std::fill(below.begin(), below.end(), 0.0);
    below_of(cand, below);
    comm.sum(below);
    for (int r = 1; r < p; ++r) {
      if (lo[r] == hi[r]) continue;
      const double target = total * double(r) / double(p);
      const std::size_t at = std::size_t(r - 1) * (ways - 1);
      uint64_t t = 1;
      while (t < ways && below[at + t - 1] < target) ++t;
      const uint64_t m_t = t < ways ? cand[at + t - 1] : hi[r];
      const uint64_t new_lo = t == 1 ? lo[r] : cand[at + t - 2] + 1;
      lo[r] = new_lo, hi[r] = m_t;
    }
  }
  DomainCuts cuts;
  cuts.begin.assign(p + 1, 0);
  for (int r = 1; r < p; ++r) cuts.begin[r] = lo[r];
  cuts.begin[p] = kKeyEnd;
  // Sums of doubles may round differently on different ranks: rank 0's cuts are everyone's.
  comm.broadcast(cuts.begin, 0);
  return cuts;
}

std::vector<double> rank_loads(const std::vector<uint64_t>& keys,
                               const std::vector<double>& weights, const DomainCuts& cuts,
                               const MpiComm& comm) {
  return loads_of(owners(keys, cuts), weights, comm);
}

double load_imbalance(const std::vector<double>& loads) {
  if (loads.empty()) return 0.0;
  const double mean = std::accumulate(loads.begin(), loads.end(), 0.0) / double(loads.size());
  if (!(mean > 0.0)) return 0.0;
  return *std::max_element(loads.begin(), loads.end()) / mean - 1.0;
}

std::vector<double> cost_weights(const ParticleStore& store, const DecompositionParams& params) {
  std::vector<double> w(store.size());
  const std::ptrdiff_t n = std::ptrdiff_t(store.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::size_t k = std::size_t(i);
    const double c =
        particle_cost(store.type[k], store.nngb[k], store.walk_cost[k], params.weights);
    w[k] = params.by_rung ? std::ldexp(c, int(store.rung[k])) : c;
  }
  return w;
}

CostWeights measured_cost_weights(double gravity_s, uint64_t particles, uint64_t walk_units,
                                  double sph_s, uint64_t neighbours, const CostWeights& previous) {
  constexpr double kPicosecond = 1e-12, kWalkGrain = 1024.0;
  auto whole = [](double per, double before) {
    return std::isfinite(per) && per >= 0.0 ? std::max(1.0, std::round(per / kPicosecond)) : before;
  };
  CostWeights w = previous;
  if (particles > 0) w.gravity = whole(gravity_s / double(particles), previous.gravity);
  if (neighbours > 0) w.neighbour = whole(sph_s / double(neighbours), previous.neighbour);
  if (walk_units > 0) {
    const double per = gravity_s / kPicosecond / double(walk_units);
    if (std::isfinite(per) && per >= 0.0)
      w.walk = std::max(1.0, std::round(per * kWalkGrain)) / kWalkGrain;
  }
  return w;
}

DecompositionReport DomainDecomposition::assign(const ParticleStore& store, const Box& box,
                                                const std::vector<double>& weights,
                                                const MpiComm& comm, std::vector<int>& dest) {
  // A wrong count on one rank is an error on every rank (none is left in a collective call).
  if (comm.any(!weights.empty() && weights.size() != store.size()))
    throw Error("decomposition: the weights of some rank do not match its particles (this rank: " +
                std::to_string(weights.size()) + " weights, " + std::to_string(store.size()) +
                " particles)");
  DecompositionReport rep;
  double weight = 0.0;
  for (std::size_t i = 0; i < store.size(); ++i) weight += weight_of(weights, i);
  rep.imbalance_before = rank_imbalance(weight, comm);

  std::vector<uint64_t> keys;
  std::vector<double> loads;
  rep.recut = !has_cuts() || recut_pending_;
  recut_pending_ = false;
  if (!rep.recut) {
    keys = sfc_keys(store, box, cube_);
    dest = owners(keys, cuts_);
    loads = loads_of(dest, weights, comm);
    rep.recut = recut_due(loads);
  }
  if (rep.recut) {
    cube_ = global_key_cube(store, box, comm);
    keys = sfc_keys(store, box, cube_);
    cuts_ = balanced_cuts(keys, weights, comm);
    dest = owners(keys, cuts_);
    loads = loads_of(dest, weights, comm);
  }
  rep.imbalance = load_imbalance(loads);
  const int me = comm.rank();
  rep.sent = std::size_t(std::count_if(dest.begin(), dest.end(), [me](int r) { return r != me; }));
  return rep;
}

std::optional<DecompositionReport> DomainDecomposition::keep_cuts(std::vector<double> loads,
                                                                  double weight,
                                                                  const MpiComm& comm) {
  if (!has_cuts()) throw Error("decomposition: keep_cuts without cuts");
  comm.sum(loads);
  DecompositionReport rep;
  rep.imbalance_before = rank_imbalance(weight, comm);
  rep.imbalance = load_imbalance(loads);
  if (recut_due(loads)) {
    recut_pending_ = true;
    return std::nullopt;
  }
  return rep;
}

DecompositionReport DomainDecomposition::adopt(const KeyCube& cube, const DomainCuts& cuts,
                                               std::vector<double> loads, double weight,
                                               const MpiComm& comm) {
  comm.sum(loads);
  DecompositionReport rep;
  rep.recut = true;
  rep.imbalance_before = rank_imbalance(weight, comm);
  rep.imbalance = load_imbalance(loads);
  cube_ = cube;
  cuts_ = cuts;
  recut_pending_ = false;
  return rep;
}

bool DomainDecomposition::recut_due(const std::vector<double>& loads) {
  const bool over = load_imbalance(loads) > params_.max_imbalance;
  if (!measured_) return over;
  if (!loads.empty()) {
    const double mean = std::accumulate(loads.begin(), loads.end(), 0.0) / double(loads.size());
    lost_s_ += 1e-12 * (*std::max_element(loads.begin(), loads.end()) - mean);
  }
  return over && lost_s_ >= recut_cost_s_;
}

void DomainDecomposition::note_recut_cost(double seconds, const MpiComm& comm) {
  if (!measured_) return;
  recut_cost_s_ = comm.max(seconds);
  lost_s_ = 0.0;
}

DecompositionReport DomainDecomposition::update(ParticleStore& store, const Box& box,
                                                const std::vector<double>& weights,
                                                const MpiComm& comm,
                                                std::vector<std::size_t>* held) {
  std::vector<int> dest;
  DecompositionReport rep = assign(store, box, weights, comm, dest);
  rep.sent = migrate_particles(store, dest, comm, held);
  return rep;
}

}  // namespace mpsph
