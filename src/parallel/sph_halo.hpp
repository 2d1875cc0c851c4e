// SPH halos (docs/mpi.md): which local gas particles other ranks need as ghosts, and where the
// ghosts go in the store while the SPH passes run.
//
// Halo rule. Each rank describes its searching gas by search boxes (sph/search_box.hpp: runs of
// consecutive particles - the store is in key order, so a run is compact - at most one search
// radius wide, each with the largest search radius among them). A rank sends its gas particle j
// to rank r when, for some search box b of r,
//   dist(x_j, b) <= max(b.radius, reach_j) (1 + kTreeRadiusSlack)
// (periodic boxes: nearest image). Since dist(x_j, b) <= r_ij for every i in b, rank r then has
// every remote j with r_ij <= radius_i (the smoothing-length search) and every j with
// r_ij <= reach_j (2 h_j: the pairs with 2 h_i <= r_ij < h_i + h_j that only j's search sees).
// The exchange: every rank's domain boxes (coarse boxes of all its gas, with their reach) go to
// every rank; each rank sends each other one only its search boxes near that one's domain boxes
// (the others cannot select anything there); each rank tests its gas against the search boxes it
// receives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "sph/search_box.hpp"

namespace mpsph {

// The search boxes (kSearchBoxes) of the searchers at[0, count) (store indices, in store order;
// null: 0 .. count - 1); radius[i]: particle i's search radius.
std::vector<SearchBox> search_boxes(const ParticleStore& store, const uint32_t* at,
                                    std::size_t count, const std::vector<double>& radius,
                                    const Box& box);
// The domain boxes (kDomainBoxes) of the gas [0, n_gas): grown at the scale of each particle's
// search radius, each with the largest reach of its particles (reach empty: 0).
std::vector<SearchBox> domain_boxes(const ParticleStore& store, std::size_t n_gas,
                                    const std::vector<double>& radius,
                                    const std::vector<double>& reach, const Box& box);

// Distance between two boxes (0 when they overlap); periodic: between nearest images.
double box_distance(const Vec3d& a_lo, const Vec3d& a_hi, const Vec3d& b_lo, const Vec3d& b_hi,
                    const Box& box);

// For every rank, the local gas particles [0, n_gas) it needs by the halo rule (empty for this
// rank itself), ascending. radius: the search radius of each local gas particle; reach: each
// one's own reach (empty: none). searchers: the local gas particles that search (ascending; null:
// all) - only their boxes go to the other ranks, so the halo holds the pairs of the searching
// particles only (a later smoothing-length round searches for the particles whose h was not exact
// only); every local gas particle may be sent. Collective (every rank's boxes are gathered).
// `self`: the list of this rank holds, by the same rule against its own boxes, the local gas its
// own searchers need (themselves included): the local part of their neighbourhoods.
std::vector<std::vector<uint32_t>> halo_members(const ParticleStore& store, std::size_t n_gas,
                                                const std::vector<double>& radius,
                                                const std::vector<double>& reach, const Box& box,
                                                const MpiComm& comm,
                                                const std::vector<uint32_t>* searchers = nullptr,
                                                bool self = false);

// Where the local particles and the ghosts are while the ghosts are in the store.
struct GhostLayout {
  std::size_t n_local = 0;              // local particles (store size without the ghosts)
  std::size_t n_local_gas = 0;          // of which gas
  std::vector<std::size_t> local_slot;  // store index of local particle i
  std::vector<std::size_t> ghost_slot;  // store index of ghost m
  std::vector<uint32_t> local_gas;      // store indices of the local gas, ascending
};

// The store holds n_local local particles (gas first) followed by ghosts (gas); keys[i] is the
// order key of store index i (the key of its position, core/sfc_key.hpp, when the order stage
// sorted: one process keeps that order for a whole block-step segment, parallel/distributed_sph.hpp
// SphOrder). Reorders the store so that the gas, local and ghost, is in [0, n_gas) followed by the
// local non-gas particles: `interleave` true: all of it ordered by (key, id) - the order one
// process gives the same particles, so that pair sums in store order are one process's bit for bit;
// false: the local gas stays where it is and the ghosts, ordered by (key, id) among themselves,
// follow it (the local non-gas particles in their way move to the end) - only the ghosts and
// those move, for passes whose sums do not follow the store order (the GPU's).
GhostLayout order_with_ghosts(ParticleStore& store, std::size_t n_local,
                              const std::vector<uint64_t>& keys, bool interleave = true);

// Drops the ghosts and puts the local particles back in their order before order_with_ghosts.
void remove_ghosts(ParticleStore& store, const GhostLayout& layout);

// The SPH passes of a halo on a work store of only the gas they need (block steps: the active
// particles' neighbourhoods): the local gas `members` (ascending; every field copied from the
// local store) and the ghosts, which `fill_ghosts(work, slot)` writes (slot: the work index of
// each ghost in receive order: the exchange of the halo's fields), all placed in (key, id) order -
// one process's relative order, so the passes' sums are one process's. keys: of the local
// particles (store order); ghost_order: (key, id) of each ghost. The layout maps into the work
// store: local_slot[i] (of every local particle; kNotInWork for one that is not a member),
// ghost_slot; local_gas: the members' work indices, ascending.
constexpr std::size_t kNotInWork = std::size_t(-1);
struct KeyId {
  uint64_t key, id;
};
GhostLayout work_layout(const ParticleStore& store, const std::vector<uint32_t>& members,
                        const std::vector<uint64_t>& keys, const std::vector<KeyId>& ghost_order);
template <class F>
GhostLayout make_work_store(const ParticleStore& store, const std::vector<uint32_t>& members,
                            const std::vector<uint64_t>& keys,
                            const std::vector<KeyId>& ghost_order, ParticleStore& work,
                            F&& fill_ghosts) {
  GhostLayout lay = work_layout(store, members, keys, ghost_order);
  work.resize(members.size() + ghost_order.size());
  std::vector<uint32_t> into(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) into[k] = uint32_t(lay.local_slot[members[k]]);
  work.copy_particles(store, members, into);
  fill_ghosts(work, lay.ghost_slot);
  return lay;
}

}  // namespace mpsph
