// The cost weight of a particle in the MPI ranks' domain decomposition (parallel/
// domain_decomposition.hpp), shared by the host's weights and the device-resident ranks' owner
// kernel (run/rank_owners.hpp): a particle's gravity (its tree walk) plus, for gas with a
// neighbour count, N_ngb times one neighbour's (the density and force loops' pair evaluations).
// The two weights are whole numbers - mpi.gravity_cost and 1 (mpi.cost_weights: model), or
// picoseconds measured on the rank (measured) - so that the costs' sums are exact in any order.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

struct CostWeights {
  double gravity = 1.0;    // a particle's gravity
  double neighbour = 1.0;  // one SPH neighbour of a gas particle
};

// The neighbours a particle's cost counts: N_ngb for gas with a neighbour count, else 0.
MPSPH_HD int32_t cost_neighbours(uint8_t type, int32_t nngb) {
  return type == kGas && nngb > 0 ? nngb : 0;
}

MPSPH_HD double particle_cost(uint8_t type, int32_t nngb, const CostWeights& w) {
  return w.gravity + w.neighbour * double(cost_neighbours(type, nngb));
}

}  // namespace mpsph
