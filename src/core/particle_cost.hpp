// The cost weight of a particle in the MPI ranks' domain decomposition (parallel/
// domain_decomposition.hpp), shared by the host's weights and the device-resident ranks' owner
// kernel (run/rank_owners.hpp): a particle's gravity (its tree walk) plus, for gas with a
// neighbour count, N_ngb times one neighbour's (the density and force loops' pair evaluations).
//
// A particle's gravity is `walk` times its own walk_cost (core/particle_fields.hpp: its share of
// its target group's last walk - SM clock cycles on a GPU, interactions on a CPU) when `walk` > 0
// and the particle was walked, else `gravity` per particle. The walk's cost per particle differs
// by region (group sizes, list lengths, memory traffic: the disk galaxy's ranks walked 126 and
// 87 ms with 6% more interactions on the slower, 2026-11-27), which a rank-mean weight cannot
// follow and a particle's own share, carried with it, does.
//
// The weights are multiples of 1/1024 - whole numbers for `gravity` and `neighbour` (mpi.
// gravity_cost and 1 with mpi.cost_weights: model, or picoseconds measured on the rank), `walk` in
// picoseconds per walk unit rounded to 1/1024 - so that every cost and every sum of costs is a
// multiple of 1/1024 below 2^43 and exact in any order.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// mpi.max_imbalance's default: the ranks cut anew when the busiest carries more than this fraction
// above the mean cost (parallel/domain_decomposition.hpp; with measured weights only once the
// imbalance has cost as much as a re-cut). 0.02 rather than 0.05: the disk galaxy at 2e7 per GPU,
// 16 steps on four H100s (2026-11-28), 318 ms per step at 4 ranks with 0.05 against 293-298 with
// 0.01-0.02 (5 re-cuts in 18 decompositions instead of 2, yet a cheaper decomposition: smaller
// migrations; fresher cuts also halved the halo selection and cut the ghosts by 30%);
// docs/PERFORMANCE.md.
constexpr double kDefaultMaxImbalance = 0.02;

struct CostWeights {
  double gravity = 1.0;    // a particle's gravity (a particle not walked, or walk = 0)
  double neighbour = 1.0;  // one SPH neighbour of a gas particle
  double walk = 0.0;       // one unit of a walked particle's walk_cost (0: per particle only)
};

// The neighbours a particle's cost counts: N_ngb for gas with a neighbour count, else 0.
MPSPH_HD int32_t cost_neighbours(uint8_t type, int32_t nngb) {
  return type == kGas && nngb > 0 ? nngb : 0;
}

// Whether the particle's gravity counts by its walk_cost (else by the per-particle weight).
MPSPH_HD bool costs_by_walk(uint32_t walk_cost, const CostWeights& w) {
  return w.walk > 0.0 && walk_cost > 0;
}

MPSPH_HD double particle_cost(uint8_t type, int32_t nngb, uint32_t walk_cost,
                              const CostWeights& w) {
  const double gravity = costs_by_walk(walk_cost, w) ? w.walk * double(walk_cost) : w.gravity;
  return gravity + w.neighbour * double(cost_neighbours(type, nngb));
}

// The sum of particle_cost over a set of particles from the set's sums, the same rule summed:
// `particles` of them, `walked` with a walk_cost > 0 whose shares add up to `walk_units`, and
// `neighbours` cost neighbours in all. Exactly that sum (multiples of 1/1024 below 2^43).
inline double summed_cost(uint64_t particles, uint64_t walked, uint64_t walk_units,
                          uint64_t neighbours, const CostWeights& w) {
  const double gravity = w.walk > 0.0
                             ? w.walk * double(walk_units) + w.gravity * double(particles - walked)
                             : w.gravity * double(particles);
  return gravity + w.neighbour * double(neighbours);
}

}  // namespace mpsph
