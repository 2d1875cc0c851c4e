#include "parallel/distributed_sph.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/parallel_sort.hpp"
#include "core/select_indices.hpp"
#include "core/wall_clock.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/particle_exchange.hpp"
#include "parallel/sph_halo.hpp"
#include "sph/neighbour_search.hpp"

namespace mpsph {

double first_search_radius(const Vec3d& lo, const Vec3d& hi, std::size_t n_gas, std::size_t k) {
  if (n_gas == 0) return 0.0;
  const double volume = (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
  if (!(volume > 0.0)) return 0.0;
  return 1.25 * std::cbrt(3.0 * double(k) * volume / (4.0 * cgs::kPi * double(n_gas)));
}

namespace {

// The bounds of the gas [0, n_gas) and first_search_radius of it.
double first_radius(const ParticleStore& store, std::size_t n_gas, std::size_t k) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Vec3d lo{inf, inf, inf}, hi{-inf, -inf, -inf};
  for (std::size_t i = 0; i < n_gas; ++i) {
    const Vec3d& x = store.pos[i];
    lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
    hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
  }
  return first_search_radius(lo, hi, n_gas, k);
}

// Receives the ghosts of `plan` with `fields` after the store's n_local particles, with their
// order keys, and orders the gas (order_with_ghosts: as one process would when `interleave`, else
// ghosts after the local gas).
GhostLayout insert_ghosts(ParticleStore& store, std::size_t n_local, const ExchangePlan& plan,
                          const FieldSet& fields, const SphOrder& order, const MpiComm& comm,
                          bool interleave) {
  store.resize(n_local + plan.n_recv());
  std::vector<std::size_t> slot(plan.n_recv());
  std::iota(slot.begin(), slot.end(), n_local);
  exchange_fields(store, plan, fields, store, slot, comm);
  std::vector<uint64_t> keys = order.keys;
  const std::vector<uint64_t> ghost_keys =
      exchange_values<uint64_t>(plan, comm, [&](uint32_t i) { return order.keys[i]; });
  keys.insert(keys.end(), ghost_keys.begin(), ghost_keys.end());
  return order_with_ghosts(store, n_local, keys, interleave);
}

// Where a halo's passes run: the local store itself with the ghosts inserted (every local gas
// particle searches: the global scheme), or a work store of only the searchers' neighbourhoods
// (block steps: a substep then costs the active particles' neighbourhoods, not the whole store,
// sph_halo.hpp make_work_store).
struct Halo {
  ExchangePlan plan;
  GhostLayout lay;
  ParticleStore* pass = nullptr;  // the store the passes run on
  bool in_place = true;
};

// `to_rank`: halo_members' lists, with this rank's own list when `work` is given (the local
// members of the work store).
Halo open_halo(ParticleStore& store, std::vector<std::vector<uint32_t>> to_rank,
               const FieldSet& fields, const SphOrder& order, const MpiComm& comm, bool interleave,
               ParticleStore* work) {
  if (order.keys.size() != store.size())
    throw Error("sph: " + std::to_string(order.keys.size()) + " order keys for " +
                std::to_string(store.size()) + " local particles (the order is of another store)");
  Halo h;
  std::vector<uint32_t> members;
  if (work) members.swap(to_rank[std::size_t(comm.rank())]);
  h.plan = make_exchange_plan(to_rank, comm);
  if (!work) {
    h.lay = insert_ghosts(store, store.size(), h.plan, fields, order, comm, interleave);
    h.pass = &store;
    return h;
  }
  // The ghosts' places first (their keys and ids), then every particle straight into its place.
  const std::vector<KeyId> ghost_order = exchange_values<KeyId>(h.plan, comm, [&](uint32_t i) {
    return KeyId{order.keys[i], store.id[i]};
  });
  h.lay = make_work_store(store, members, order.keys, ghost_order, *work,
                          [&](ParticleStore& w, const std::vector<std::size_t>& slot) {
                            exchange_fields(store, h.plan, fields, w, slot, comm);
                          });
  h.pass = work;
  h.in_place = false;
  return h;
}

// Every field of the local particles `written` from the work store back into the local store
// (nothing in place: the passes wrote there).
void write_back(ParticleStore& store, const Halo& h, const std::vector<uint32_t>& written) {
  if (h.in_place) return;
  std::vector<uint32_t> from(written.size());
  for (std::size_t k = 0; k < written.size(); ++k) from[k] = uint32_t(h.lay.local_slot[written[k]]);
  store.copy_particles(*h.pass, from, written);
}

// The end of a halo: the ghosts leave the local store, or the work store's results for `written`
// come back.
void close_halo(ParticleStore& store, const Halo& h, const std::vector<uint32_t>& written) {
  if (h.in_place)
    remove_ghosts(store, h.lay);
  else
    write_back(store, h, written);
}

// For each gas slot of the layout's store: the local index of the particle there, or n_local +
// ghost_base + its ghost index (the references of HaloPairs and HaloCandidates).
std::vector<uint32_t> slot_references(std::size_t n_gas, const GhostLayout& lay,
                                      std::size_t ghost_base = 0) {
  std::vector<uint32_t> ref(n_gas);
  for (std::size_t i = 0; i < lay.n_local_gas; ++i)
    if (lay.local_slot[i] != kNotInWork) ref[lay.local_slot[i]] = uint32_t(i);
  for (std::size_t m = 0; m < lay.ghost_slot.size(); ++m)
    ref[lay.ghost_slot[m]] = uint32_t(lay.n_local + ghost_base + m);
  return ref;
}

// The store slots of local particles `index` (ascending).
std::vector<uint32_t> slots_of(const std::vector<uint32_t>& index, const GhostLayout& lay) {
  std::vector<uint32_t> act(index.size());
  const std::ptrdiff_t n = std::ptrdiff_t(index.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t t = 0; t < n; ++t)
    act[std::size_t(t)] = uint32_t(lay.local_slot[index[std::size_t(t)]]);
  if (!std::is_sorted(act.begin(), act.end()))
    parallel_sort(act.begin(), act.end(), std::less<uint32_t>());
  return act;
}

// The pair lists of the local gas `index` from the passes, with every neighbour named by its local
// index or n_local + its ghost index (HaloPairs).
// `act`: the store slots of `index`. Passes that keep no host pair lists (the GPU's) get them
// built here, the same pair sets (SphNeighbours::build_pairs over the active gas).
void take_pairs(const ParticleStore& store, const Box& box, const GhostLayout& lay,
                const ExchangePlan& plan, const std::vector<uint32_t>& index,
                const std::vector<uint32_t>& act, const SphPasses& passes, HaloPairs& out) {
  const SphNeighbours* nb = passes.pair_lists();
  SphNeighbours host;
  if (!index.empty() && !nb) {
    host.build_tree(store, box, 0.0);
    host.build_pairs(store, box, active_subset(act, act.size()));
    nb = &host;
  }
  // Without active gas here the passes did not run: no lists to take.
  if (!index.empty() && (!nb->has_pairs() || nb->n_gas() != store.n_gas()))
    throw Error(std::string("sph: the pair lists of the ") + passes.name() +
                " passes are not those of this store");
  const std::vector<uint32_t> ref = slot_references(store.n_gas(), lay);
  out.plan = plan;
  out.n_local = lay.n_local;
  out.active = index;
  out.offsets.assign(index.size() + 1, 0);
  for (std::size_t k = 0; k < index.size(); ++k) {
    const std::size_t s = lay.local_slot[index[k]];
    out.offsets[k + 1] = out.offsets[k] + uint64_t(nb->pairs_end(s) - nb->pairs_begin(s));
  }
  out.neighbours.resize(out.offsets.back());
  const std::ptrdiff_t n = std::ptrdiff_t(index.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t s = lay.local_slot[index[std::size_t(k)]];
    uint32_t* o = out.neighbours.data() + out.offsets[std::size_t(k)];
    for (const uint32_t* j = nb->pairs_begin(s); j != nb->pairs_end(s); ++j) *o++ = ref[*j];
  }
}

// The candidates the passes found for the todo particles whose h is final this round (widened
// 0), as local indices or ghost ids (HaloCandidates).
void keep_candidates(const ParticleStore& store, const GhostLayout& lay,
                     const std::vector<uint32_t>& todo, const std::vector<double>& widened,
                     const SphPasses& passes, HaloCandidates& out) {
  const SphNeighbours* hs = passes.h_search();
  if (!hs || hs->candidate_stride() == 0) return;
  const std::size_t stride = hs->candidate_stride();
  out.stride = stride;
  out.ref.resize(lay.n_local_gas * stride);  // rows are written where covered_h is set
  // Store slot -> reference, for the gas of this round's layout; this round's ghosts follow the
  // earlier rounds' in ghost_id.
  const std::vector<uint32_t> ref_of = slot_references(store.n_gas(), lay, out.ghost_id.size());
  for (const std::size_t slot : lay.ghost_slot) out.ghost_id.push_back(store.id[slot]);
  const std::ptrdiff_t n_todo = std::ptrdiff_t(todo.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t t = 0; t < n_todo; ++t) {
    const std::size_t i = todo[std::size_t(t)];
    const std::size_t s = lay.local_slot[i];
    if (widened[std::size_t(t)] > 0.0 || hs->covered_h(s) != store.h[s]) {
      out.covered_h[i] = 0.f;
      continue;
    }
    const uint32_t* c = hs->candidates(s);
    uint32_t* r = out.ref.data() + i * stride;
    for (std::size_t m = 0; m < stride; ++m) r[m] = ref_of[c[m]];
    out.covered_h[i] = store.h[s];
  }
}

// The candidates of the smoothing-length stage in the density layout `lay`, handed to the passes;
// a candidate absent from this halo (beyond 2 h_i of its particle: the halo holds every remote j
// within 2 h_i of an active i) becomes the particle itself, which the pair search skips.
void give_candidates(const ParticleStore& store, const GhostLayout& lay, const HaloCandidates& in,
                     SphPasses& passes) {
  const std::size_t stride = in.stride, n_gas = store.n_gas();
  // Where each recorded ghost id is now: ids of this halo's ghosts, sorted.
  std::vector<std::pair<uint64_t, uint32_t>> here(lay.ghost_slot.size());
  for (std::size_t m = 0; m < here.size(); ++m)
    here[m] = {store.id[lay.ghost_slot[m]], uint32_t(lay.ghost_slot[m])};
  std::sort(here.begin(), here.end());
  constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> ghost_slot(in.ghost_id.size(), kAbsent);
  const std::ptrdiff_t n_ids = std::ptrdiff_t(in.ghost_id.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t g = 0; g < n_ids; ++g) {
    const uint64_t id = in.ghost_id[std::size_t(g)];
    const auto it = std::lower_bound(here.begin(), here.end(), std::make_pair(id, uint32_t(0)));
    if (it != here.end() && it->first == id) ghost_slot[std::size_t(g)] = it->second;
  }
  std::vector<uint32_t> index(n_gas * stride);
  std::vector<float> covered(n_gas, 0.f);
  const std::size_t n_local = in.n_local;
  const std::ptrdiff_t n_lg = std::ptrdiff_t(lay.n_local_gas);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n_lg; ++k) {
    const std::size_t i = std::size_t(k);
    if (!(in.covered_h[i] > 0.f) || lay.local_slot[i] == kNotInWork) continue;
    const uint32_t s = uint32_t(lay.local_slot[i]);
    const uint32_t* r = in.ref.data() + i * stride;
    uint32_t* out = index.data() + std::size_t(s) * stride;
    for (std::size_t m = 0; m < stride; ++m) {
      uint32_t slot = kAbsent;
      if (r[m] >= n_local)
        slot = ghost_slot[r[m] - n_local];
      else if (lay.local_slot[r[m]] != kNotInWork)
        slot = uint32_t(lay.local_slot[r[m]]);
      out[m] = slot == kAbsent ? s : slot;
    }
    covered[s] = in.covered_h[i];
  }
  passes.give_candidates(stride, std::move(index), std::move(covered));
}

std::vector<uint32_t> all_of(std::size_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), uint32_t{0});
  return v;
}

}  // namespace

void distributed_smoothing_lengths(ParticleStore& store, const Box& box, const SphOrder& order,
                                   const SphParams& sph, const MpiComm& comm, SphPasses& passes,
                                   DistributedSphReport& rep, const std::vector<uint32_t>* active,
                                   HaloCandidates* candidates) {
  const double t_begin = wall_seconds();
  const std::size_t n_local = store.size();
  const std::size_t n_gl = store.n_gas();
  rep.n_local_gas = n_gl;
  rep.n_active_gas = active ? active->size() : n_gl;
  rep.h_passes_s = rep.h_own_s = 0.0;
  const KeyCube& cube = order.cube;
  const std::size_t k = std::size_t(sph.n_neighbours) + 1;
  const uint64_t n_gas_total = comm.sum(uint64_t(n_gl));
  if (n_gas_total < k)
    throw Error("sph.n_neighbours = " + std::to_string(sph.n_neighbours) + " needs at least " +
                std::to_string(k) + " gas particles; there are " + std::to_string(n_gas_total));

  // --- 1. smoothing lengths --------------------------------------------------------------------
  const std::ptrdiff_t n_gl_signed = std::ptrdiff_t(n_gl);
  std::vector<double> radius(n_gl);
  bool without_h = false;
#pragma omp parallel for schedule(static) reduction(|| : without_h)
  for (std::ptrdiff_t i = 0; i < n_gl_signed; ++i) {
    const float h = store.h[std::size_t(i)];
    radius[std::size_t(i)] = h > 0.f ? 2.5 * double(h) : 0.0;
    without_h = without_h || !(h > 0.f);
  }
  if (without_h) {
    const double guess = first_radius(store, n_gl, k);
    for (std::size_t i = 0; i < n_gl; ++i)
      if (!(store.h[i] > 0.f)) radius[i] = guess;
  }
  // The local gas whose h is not yet exact (ascending): at first the active gas; a later round's
  // halo searches for these only (the others' h are final and need no more ghosts).
  std::vector<uint32_t> todo = active ? *active : all_of(n_gl);
  const FieldSet h_fields{{"pos", "id", "type"}};
  ParticleStore work;  // block steps: the passes' work store
  if (candidates) {
    candidates->stride = 0;
    candidates->n_local = n_local;
    candidates->ghost_id.clear();
    candidates->covered_h.assign(n_gl, 0.f);
  }
  for (int round = 1;; ++round) {
    if (round > kMaxHaloRounds)
      throw Error("sph: the smoothing-length halo did not settle in " +
                  std::to_string(kMaxHaloRounds) + " rounds");
    rep.h_rounds = round;
    // Block steps: the passes run on the searchers' neighbourhoods only (a work store).
    const Halo halo =
        open_halo(store,
                  halo_members(store, n_gl, radius, {}, box, comm,
                               round == 1 && !active ? nullptr : &todo, active != nullptr),
                  h_fields, order, comm, passes.sums_in_store_order(), active ? &work : nullptr);
    const GhostLayout& lay = halo.lay;
    ParticleStore& ps = *halo.pass;
    rep.ghosts_h = halo.plan.n_recv();
    const std::ptrdiff_t n_todo = std::ptrdiff_t(todo.size());
    const std::vector<uint32_t> act = slots_of(todo, lay);
    // Fewer gas particles at hand than one neighbourhood: widen before searching.
    const bool short_of_gas = ps.n_gas() < k;
    std::vector<double> next;
    const double t_pass = wall_seconds();
    rep.h_own_s += on_every_rank(comm, [&] {
      if (!act.empty() && !short_of_gas) passes.smoothing_lengths(ps, box, sph, act, next);
    });
    rep.h_passes_s += wall_seconds() - t_pass;
    // Each todo particle's new radius, or 0 once its h is exact.
    std::vector<double> widened(todo.size(), 0.0);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t t = 0; t < n_todo; ++t) {
      const std::size_t i = todo[std::size_t(t)];
      double& w = widened[std::size_t(t)];
      if (short_of_gas) {
        w = radius[i] > 0.0 ? 2.0 * radius[i] : cube.edge;
      } else {
        const std::size_t s = lay.local_slot[i];
        const double need = std::max(next[s], 2.0 * double(ps.h[s]));
        if (need > radius[i]) w = 1.25 * need;
      }
    }
    if (candidates && !short_of_gas && !act.empty())
      keep_candidates(ps, lay, todo, widened, passes, *candidates);
    close_halo(store, halo, todo);
    std::vector<uint32_t> still =
        select_indices<uint32_t>(0, todo.size(), [&](std::size_t t) { return widened[t] > 0.0; });
    for (uint32_t& t : still) {
      radius[todo[t]] = widened[t];
      t = todo[t];
    }
    todo = std::move(still);
    if (!comm.any(!todo.empty())) break;
  }
  rep.h_s = wall_seconds() - t_begin;
}

void distributed_density_forces(ParticleStore& store, const Box& box, const SphOrder& order,
                                const SphParams& sph, const EosParams& eos, const MpiComm& comm,
                                SphPasses& passes, DistributedSphReport& rep,
                                const std::vector<uint32_t>* active, HaloPairs* pairs,
                                const HaloCandidates* candidates) {
  const double t_begin = wall_seconds();
  const std::size_t n_gl = store.n_gas();
  std::vector<double> support(n_gl);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n_gl); ++i)
    support[std::size_t(i)] = 2.0 * double(store.h[std::size_t(i)]);
  // Only the active gas searches; every local gas particle may be a neighbour (its reach). Block
  // steps: the passes run on the active particles' neighbourhoods only (a work store).
  ParticleStore work;
  const Halo halo = open_halo(
      store, halo_members(store, n_gl, support, support, box, comm, active, active != nullptr),
      FieldSet{{"pos", "vel", "mass", "id", "type", "h"}}, order, comm,
      passes.sums_in_store_order(), active ? &work : nullptr);
  const ExchangePlan& plan = halo.plan;
  const GhostLayout& lay = halo.lay;
  ParticleStore& ps = *halo.pass;
  rep.ghosts_pairs = plan.n_recv();
  const std::vector<uint32_t> act = active ? slots_of(*active, lay) : lay.local_gas;
  // The particles whose results the passes write (every local gas particle only for the limiter's
  // pairs at a synchronisation point of block steps).
  std::vector<uint32_t> all_gas;
  if (!active && pairs) all_gas = all_of(n_gl);
  const std::vector<uint32_t>& written = active ? *active : all_gas;
  if (candidates && candidates->stride > 0) give_candidates(ps, lay, *candidates, passes);
  double t_pass = wall_seconds();
  rep.pairs_own_s = on_every_rank(comm, [&] {
    if (!act.empty()) passes.density(ps, box, sph, eos, act);
  });
  rep.pairs_passes_s = wall_seconds() - t_pass;
  // What force_particle() reads of a neighbour, from the ghosts' owners (a work store's results
  // first go back to the local store, which the owners send from).
  const FieldSet refreshed{{"rho", "pressure", "csound", "balsara"}};
  if (halo.in_place) {
    exchange_fields(store, plan, refreshed, store, lay.ghost_slot, comm, &lay.local_slot);
  } else {
    write_back(store, halo, written);
    exchange_fields(store, plan, refreshed, ps, lay.ghost_slot, comm);
  }
  t_pass = wall_seconds();
  rep.pairs_own_s += on_every_rank(comm, [&] {
    if (!act.empty()) passes.forces(ps, box, sph, act);
  });
  rep.pairs_passes_s += wall_seconds() - t_pass;
  if (pairs)
    on_every_rank(comm, [&] { take_pairs(ps, box, lay, plan, written, act, passes, *pairs); });
  close_halo(store, halo, written);
  rep.pairs_s = wall_seconds() - t_begin;
}

DistributedSphReport distributed_sph_forces(ParticleStore& store, const Box& box,
                                            const SphParams& sph, const EosParams& eos,
                                            const MpiComm& comm, SphPasses* passes) {
  std::unique_ptr<SphPasses> cpu_passes;
  if (!passes) {
    cpu_passes = make_cpu_sph_passes();
    passes = cpu_passes.get();
  }
  DistributedSphReport rep;
  const SphOrder order = sph_order(store, box, comm);
  HaloCandidates candidates;
  distributed_smoothing_lengths(store, box, order, sph, comm, *passes, rep, nullptr, &candidates);
  distributed_density_forces(store, box, order, sph, eos, comm, *passes, rep, nullptr, nullptr,
                             &candidates);
  return rep;
}

SphOrder sph_order(const ParticleStore& store, const Box& box, const MpiComm& comm) {
  SphOrder o;
  o.cube = global_key_cube(store, box, comm);
  o.keys = sfc_keys(store, box, o.cube);
  return o;
}

}  // namespace mpsph
