// The density stage of the CPU backend (OpenMP): rho, div v and |curl v| of every gas particle
// from the pair functions of density_kern.hpp.
#pragma once

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

// Builds the pair lists of this step in `nb` (all gas pairs with r_ij < h_i + h_j; the tree must
// hold the current positions, as compute_smoothing_lengths leaves it) and sets store.rho,
// store.divv and store.curlv for gas [0, n_gas). SphParams is not read by the seed scheme; it is
// part of the signature so that every stage is called the same way.
// Density, div v and |curl v| of the active gas particles (all by default), whose pair lists it
// builds.
void compute_density(ParticleStore& store, const Box& box, const SphParams& params,
                     SphNeighbours& nb, const ActiveSet& active = {});

}  // namespace mpsph
