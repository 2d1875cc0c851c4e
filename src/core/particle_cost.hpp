// The cost weight of a particle in the MPI ranks' domain decomposition (parallel/
// domain_decomposition.hpp), shared by the host's weights and the device-resident ranks' owner
// kernel (run/rank_owners.hpp): `gravity_cost` for every particle's tree walk (mpi.gravity_cost, a
// whole number, in units of one SPH neighbour) plus, for gas with a neighbour count, its N_ngb
// (the density and force loops' pair evaluations). Whole numbers, so that their sums are exact
// in any order.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

MPSPH_HD double particle_cost(uint8_t type, int32_t nngb, double gravity_cost) {
  return gravity_cost + (type == kGas && nngb > 0 ? double(nngb) : 0.0);
}

}  // namespace mpsph
