// The SPH passes of the CPU backend across MPI ranks (docs/mpi.md): smoothing lengths, density,
// EOS and Balsara switch, and SPH forces of every rank's local gas, with the remote neighbours as
// ghosts, so that every result is that of one process holding all particles.
//
// 1. Smoothing lengths. Ghosts within each local particle's search radius s_i (first 2.5 h_i of
//    the last step, or an estimate from the local number density) are fetched and h_i computed
//    by compute_smoothing_lengths. The result is exact when s_i >= max(d_{N+1}, 2 h_i): every gas
//    particle within the distance of the (N_B+1)-th nearest, and within the kernel support, is
//    then present. Particles where it is not get s_i = 1.25 max(d_{N+1}, 2 h_i) - the local
//    d_{N+1} bounds the true one from above - and are redone with a new halo.
// 2. Density and forces. With every h final, a new halo carries pos, vel, mass and h of the
//    remote j with r_ij <= 2 h_i or r_ij <= 2 h_j (all pairs r_ij < h_i + h_j); after the density
//    and the EOS pass, the ghosts' rho, P, c_s and Balsara factor are refreshed from their owners
//    and the forces computed.
// While the ghosts are in the store, the gas (local and ghost) is in the order one process gives
// it, (order key in the global cube at the segment's order stage, id); every pair list is sorted
// by store index, so each sum runs over the same neighbours in the same order as on one process
// and the results are the same bit for bit (tests/parallel/distributed_sph_mpi.cpp).
// Block time steps: only the active local gas searches. The halos are then those of the active
// particles' boxes - in 1. their searches, in 2. every remote j with r_ij <= 2 h_i for an active i
// or within its own 2 h_j of one (the pairs an inactive j's search finds on one process) - and the
// inactive ghosts carry their predicted state (pos, vel, h; rho, P, c_s as the drift left them,
// and the Balsara factor of their last evaluation), which is what one process reads of them.
// The passes of a block substep run on a work store of only the active particles'
// neighbourhoods - the local members the halo rule picks against the rank's own boxes and the
// ghosts, in (key, id) order (sph_halo.hpp make_work_store) - and the active particles' results
// are copied back; under the global scheme the ghosts are inserted into the store itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/particle_exchange.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "sph/sph_passes.hpp"

namespace mpsph {

// Rounds of the smoothing-length halo before giving up: each round widens the radius of every
// particle it could not finish to 1.25 x an upper bound of what it needs, so two rounds settle
// all but pathological cases.
constexpr int kMaxHaloRounds = 16;

// Search radius for particles without a smoothing length yet: 1.25 x the radius holding k = N_B + 1
// particles at the mean density of a rank's n_gas gas particles within [lo, hi] (0 when they
// span no volume).
double first_search_radius(const Vec3d& lo, const Vec3d& hi, std::size_t n_gas, std::size_t k);

struct DistributedSphReport {
  int h_rounds = 0;              // halo rounds until every h was exact (same on every rank)
  std::size_t ghosts_h = 0;      // ghosts this rank received in the last smoothing-length round
  std::size_t ghosts_pairs = 0;  // ghosts this rank received for the density and forces
  std::size_t n_local_gas = 0;   // this rank's gas particles
  std::size_t n_active_gas = 0;  // of which active (all of them under the global scheme)
  // Wall seconds on this rank: the smoothing-length rounds and the density-and-forces part, each
  // with its halos, and the passes of each (the rest: halo selection, exchange, ordering).
  double h_s = 0.0, pairs_s = 0.0, h_passes_s = 0.0, pairs_passes_s = 0.0;
  // Of the passes, this rank's own work (without the wait for the other ranks at their end): the
  // measured cost weights' SPH time (parallel/domain_decomposition.hpp).
  double h_own_s = 0.0, pairs_own_s = 0.0;
  // Of the halos of both (the device-resident ranks, parallel/resident_sph.hpp; 0 elsewhere): the
  // boxes (domain boxes, search boxes, their exchange), the selection of the particles each rank
  // needs (with the exchange plan; of it, halo_select_own_s: this rank's GPU work, without the
  // wait for the other ranks), and the records' packing and exchange.
  double halo_boxes_s = 0.0, halo_select_s = 0.0, halo_select_own_s = 0.0, halo_records_s = 0.0;
  // Of the boxes: the domain boxes (grown, gathered from every rank), this rank's search boxes
  // (grown, and those near each rank's domain found), and their exchange.
  double halo_domains_s = 0.0, halo_search_s = 0.0, halo_box_exchange_s = 0.0;
  // Of the domain boxes: their growth on this rank's GPU and the copy to the host (the rest is
  // the gather).
  double halo_domains_grow_s = 0.0;
  // The boxes themselves: this rank's domain boxes (gathered to every rank) and the search boxes
  // it sent to the other ranks, summed over the halos.
  double domain_boxes = 0.0, search_boxes_sent = 0.0;
};

// The order in which one process holds the gas: its order stage sorts by key (core/sfc_key.hpp) at
// the first substep of a segment and keeps that order for the whole segment (run/cpu_backend.cpp).
// `keys`: the key of each of this rank's particles (store order) in `cube`, the cube of the whole
// run, at that order stage; the halos carry the keys with the ghosts.
struct SphOrder {
  KeyCube cube;
  std::vector<uint64_t> keys;
};
// Of the particles as they are (collective: the cube spans every rank's particles).
SphOrder sph_order(const ParticleStore& store, const Box& box, const MpiComm& comm);

// The smoothing-length search's candidates of the local gas (SphPasses::h_search), carried from
// the smoothing-length stage to the density stage across the change of halo: each local gas
// particle's `stride` candidates as a local index (< n_local) or n_local + an index into
// `ghost_id` (the ids of the ghosts of the rounds that found them); covered_h 0 where there are
// none. The density stage maps them to its own layout (a candidate missing from its halo lies
// beyond 2 h_i and is not needed), so its pair search filters them as one process's does instead
// of searching a new kd-tree (SphPasses::give_candidates).
struct HaloCandidates {
  std::size_t stride = 0;  // 0: none
  std::size_t n_local = 0;
  std::vector<uint32_t> ref;       // n_local_gas x stride
  std::vector<float> covered_h;    // per local gas particle
  std::vector<uint64_t> ghost_id;  // of the smoothing-length rounds' ghosts
};

// The pair lists of the active local gas from the last density-and-forces stage, with the
// remote neighbours named by their ghost, and the halo that brought the ghosts: what the neighbour
// limiter and the wake-up of block time steps read across ranks (parallel/distributed_limiter.hpp).
struct HaloPairs {
  ExchangePlan plan;                 // the density halo (send_index: local store indices)
  std::size_t n_local = 0;           // local particles
  std::vector<uint32_t> active;      // local store indices of the active gas, ascending
  std::vector<uint64_t> offsets;     // pairs of active[k]: [offsets[k], offsets[k + 1])
  std::vector<uint32_t> neighbours;  // j < n_local: local particle j; else ghost j - n_local
  std::size_t n_ghosts() const { return plan.n_recv(); }
};

// Sets h, nngb, rho, divv, curlv, pressure, csound, balsara (and u for a non-adiabatic EOS), and
// the hydrodynamic acc, dudt and vsig of the active local gas (collective). The store holds this
// rank's particles with gas first (as the order stage leaves it); it keeps its order. `active`:
// the local store indices of the active gas, ascending (null: all the local gas; block time
// steps: the neighbours are all the gas at its predicted state, as on one process). The passes run
// on `passes`' backend (sph/sph_passes.hpp); the halos are the same for both. The two halves,
// collective each: 1. h and nngb; 2. with every h final, the rest, and with `pairs` the pair lists
// of the active gas (the passes must keep them: SphPasses::pair_lists; mpsph::Error otherwise).
// `rep` collects both halves' numbers (distributed_sph_forces calls the two). `order`: of the
// store as it is (sph_order, or the one of the segment's order stage: the particles keep their
// store places through a segment).
// `candidates`: filled by the first half when the passes keep candidates (else stride 0), read
// by the second (null: the density pass searches its own kd-tree; the results are the same).
void distributed_smoothing_lengths(ParticleStore& store, const Box& box, const SphOrder& order,
                                   const SphParams& sph, const MpiComm& comm, SphPasses& passes,
                                   DistributedSphReport& rep,
                                   const std::vector<uint32_t>* active = nullptr,
                                   HaloCandidates* candidates = nullptr);
void distributed_density_forces(ParticleStore& store, const Box& box, const SphOrder& order,
                                const SphParams& sph, const EosParams& eos, const MpiComm& comm,
                                SphPasses& passes, DistributedSphReport& rep,
                                const std::vector<uint32_t>* active = nullptr,
                                HaloPairs* pairs = nullptr,
                                const HaloCandidates* candidates = nullptr);
DistributedSphReport distributed_sph_forces(ParticleStore& store, const Box& box,
                                            const SphParams& sph, const EosParams& eos,
                                            const MpiComm& comm, SphPasses* passes = nullptr);

}  // namespace mpsph
