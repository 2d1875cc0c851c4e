// Space-filling-curve domain decomposition (docs/mpi.md): the 63-bit keys of the order stage
// (Hilbert keys, core/sfc_key.hpp), computed in one key cube common to all ranks, are cut into one
// contiguous key range per rank so that every rank carries the same total cost (sum of the
// per-particle weights), as in GADGET-4 and cornerstone (SPH-EXA).
//
// The cuts are exact: each cut is the smallest key below which the global cumulative weight
// reaches r W / P, found by a search on the key value that splits each cut's interval of keys into
// up to 16 parts per step (search_cuts); every step sums the local weights below the candidate
// keys (binary search in the sorted local keys) over all ranks. With distinct keys every rank's
// load then differs from W / P by less than the largest single weight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/box.hpp"
#include "core/morton.hpp"  // KeyCube
#include "core/particle_cost.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

// One past the largest 63-bit key.
constexpr uint64_t kKeyEnd = uint64_t(1) << 63;

// The cube of the whole run, as order_particles makes it for one process: a periodic box's
// [box.lo, box.lo + max edge); in an open box the bounding cube of every rank's particles
// (collective).
KeyCube global_key_cube(const ParticleStore& store, const Box& box, const MpiComm& comm);
// The same from the bounds [lo, hi] of this rank's particles (lo > hi: none), for a caller that
// has them from elsewhere (the device-resident ranks' GPU).
KeyCube global_key_cube(const Vec3d& lo, const Vec3d& hi, const Box& box, const MpiComm& comm);

// Key of every local particle in `cube` (periodic positions wrapped into the box first).
std::vector<uint64_t> sfc_keys(const ParticleStore& store, const Box& box, const KeyCube& cube);

// Rank r owns the keys [begin[r], begin[r + 1]); begin[0] = 0, begin[P] = kKeyEnd.
struct DomainCuts {
  std::vector<uint64_t> begin;
  int owner(uint64_t key) const;
};

// Cost-weighted cuts (collective): keys and weights of the local particles (weights empty: 1
// each). Every rank gets rank 0's cuts.
DomainCuts balanced_cuts(const std::vector<uint64_t>& keys, const std::vector<double>& weights,
                         const MpiComm& comm);

// The search of balanced_cuts for a caller that sums its weights below given keys itself (the
// device-resident ranks' GPU, run/rank_owners.hpp), collective: below(keys, out) sets out[j] to
// the weight of this rank's particles with keys < keys[j], for every j (out comes zeroed, as
// long as keys; the keys in no order, repeats allowed); `local_total`: the weight of all of them.
// Each step splits every cut's interval of keys [lo, hi] at K - 1 candidates (K = 16, or fewer
// where (P - 1)(K - 1) would pass `max_candidates`, at least 2), one call of `below` and one
// MPI_Allreduce for all of them: ceil(64 / log2 K) steps (16 instead of a bisection's 64), the
// same number on every rank. Every rank gets rank 0's cuts.
using WeightBelow = std::function<void(const std::vector<uint64_t>&, std::vector<double>&)>;
DomainCuts search_cuts(const WeightBelow& below, double local_total, const MpiComm& comm,
                       std::size_t max_candidates = 2048);

// Total weight on each rank under `cuts` (collective; the same vector on every rank).
std::vector<double> rank_loads(const std::vector<uint64_t>& keys,
                               const std::vector<double>& weights, const DomainCuts& cuts,
                               const MpiComm& comm);

// max_r load_r / mean - 1 (0 when every rank carries the same cost, or nothing is carried).
double load_imbalance(const std::vector<double>& loads);

struct DecompositionParams {
  // New cuts when the loads under the current cuts exceed the mean by more than this fraction.
  double max_imbalance = kDefaultMaxImbalance;
  // The cost weights (core/particle_cost.hpp): mpi.gravity_cost and 1 for one SPH neighbour (no
  // walk weight), until a rank measures its own (`measured`).
  CostWeights weights;
  // mpi.cost_weights: measured - each rank's weights from its own work times of the last step
  // (measured_cost_weights) once the start-up is over; model - `weights` throughout.
  bool measured = true;
  // Block time steps: each particle's cost times its steps in the segment, 2^rung (a particle on
  // rung k is active 2^k times; the sums may then round beyond 2^53).
  bool by_rung = false;
};

// The cost of each particle (core/particle_cost.hpp): its gravity (weights.walk times its
// walk_cost, or weights.gravity), plus weights.neighbour times N_ngb for gas with a neighbour
// count (the density and force loops cost ~N_ngb pair evaluations); with by_rung, times 2^rung.
std::vector<double> cost_weights(const ParticleStore& store, const DecompositionParams& params);

// The weights of one rank from what its last step cost it, its own work without waiting for
// other ranks: `gravity_s` for the walks of its `particles`, whose walk_cost shares sum to
// `walk_units`, `sph_s` for its SPH passes over `neighbours` (the sum of cost_neighbours; under
// block steps all are summed over the active particles of each substep of the segment). Whole
// picoseconds per particle and per neighbour, at least 1, and picoseconds per walk unit in
// multiples of 1/1024, at least 1/1024 (core/particle_cost.hpp); `previous`'s where nothing was
// measured (no particles, no walk units, no neighbours). The rank's load (the sum of its costs)
// is then its measured time: the imbalance that decides a re-cut is that of the ranks' work
// times, and the new cuts give each rank the same time by these weights, each particle's gravity
// by its own share of the walk (a particle in a region that walks slowly - small groups, long
// lists - costs more wherever it goes).
CostWeights measured_cost_weights(double gravity_s, uint64_t particles, uint64_t walk_units,
                                  double sph_s, uint64_t neighbours, const CostWeights& previous);

// What one DomainDecomposition::update did.
struct DecompositionReport {
  bool recut = false;             // new cuts were computed
  double imbalance_before = 0.0;  // of the particles' current ranks' loads (before migration)
  double imbalance = 0.0;         // under the cuts used, after migration
  std::size_t sent = 0;           // particles this rank sent to other ranks
};

class DomainDecomposition {
 public:
  explicit DomainDecomposition(const DecompositionParams& params = {}) : params_(params) {}
  const DecompositionParams& params() const { return params_; }
  // This rank's measured cost weights from now on (measured_cost_weights): the loads are then
  // picoseconds of work, and a re-cut is also a matter of cost (see recut_due).
  void set_weights(const CostWeights& w) {
    params_.weights = w;
    measured_ = true;
  }
  // The wall seconds the last re-cut with its migration took on this rank (collective: the
  // largest over the ranks counts), when the weights are measured.
  void note_recut_cost(double seconds, const MpiComm& comm);

  // Assigns every particle to the rank that owns its key and migrates it there with all its
  // fields (collective). The cuts (and their key cube) are kept between calls and recomputed when
  // there are none yet or the imbalance under them exceeds params.max_imbalance. weights: the
  // cost of each local particle (empty: 1 each). The store's order afterwards is that of
  // migrate_particles (the order stage sorts it); with `held`, the store is not compacted
  // (migrate_particles' `held`: the caller orders the held particles with one permute).
  DecompositionReport update(ParticleStore& store, const Box& box,
                             const std::vector<double>& weights, const MpiComm& comm,
                             std::vector<std::size_t>* held = nullptr);

  // The decision of update() without the migration: dest[i] is the rank that owns local particle
  // i's key (collective); `sent` counts those owned by other ranks. For a caller that moves the
  // particles itself (the device-resident GPU ranks, run/mpi/gpu_rank_link.hpp). Reads only the
  // store's pos (and type for a periodic box's wrap, as sfc_keys does).
  DecompositionReport assign(const ParticleStore& store, const Box& box,
                             const std::vector<double>& weights, const MpiComm& comm,
                             std::vector<int>& dest);

  // assign()'s decision for a caller that found the owners under the current cuts itself (the
  // device-resident GPU ranks, run/rank_owners.hpp), collective: `loads`, the weight of this
  // rank's particles each rank owns under cuts(), and `weight`, of all of them. The report (its
  // `sent` left 0) when the cuts stand (recut_due is false, and the caller's owners are
  // assign()'s) or nothing when they must be cut anew: the caller then calls assign() or adopt(),
  // which makes that re-cut. Requires has_cuts().
  std::optional<DecompositionReport> keep_cuts(std::vector<double> loads, double weight,
                                               const MpiComm& comm);

  // The cuts (and their key cube) a caller made itself (search_cuts on the device-resident ranks'
  // GPU), collective: `loads`, the weight of this rank's particles each rank owns under them, and
  // `weight`, of all of them (as for keep_cuts). Returns the re-cut's report (its `sent` left 0).
  DecompositionReport adopt(const KeyCube& cube, const DomainCuts& cuts, std::vector<double> loads,
                            double weight, const MpiComm& comm);

  bool has_cuts() const { return !cuts_.begin.empty(); }
  const DomainCuts& cuts() const { return cuts_; }
  const KeyCube& cube() const { return cube_; }

 private:
  // Whether the cuts must be made anew under the ranks' `loads` (summed over the ranks): their
  // imbalance exceeds params.max_imbalance and, with measured weights (loads in picoseconds),
  // the time lost to it since the last re-cut - the largest rank's load less the mean, summed
  // over the decisions - has reached what that re-cut cost (Menon et al. 2012's rule: re-cut
  // when the imbalance has cost as much as a re-cut; the first measured re-cut is free to come at
  // once). Counts this decision's loss.
  bool recut_due(const std::vector<double>& loads);

  DecompositionParams params_;
  DomainCuts cuts_;
  KeyCube cube_;
  bool measured_ = false;       // set_weights was called: loads are picoseconds
  double lost_s_ = 0.0;         // imbalance loss since the last re-cut (measured weights)
  double recut_cost_s_ = 0.0;   // the last measured re-cut's cost, largest over the ranks
  bool recut_pending_ = false;  // keep_cuts decided on a re-cut, which assign() then makes
};

}  // namespace mpsph
