// Smoothing lengths (PHYSICS.md section 1): N_B gas neighbours inside the kernel support 2h_i,
// found with the kd-tree.
//
// Definition. N_B counts gas particles j with r_ij < 2 h_i, i itself included (as in rho_i). With
// d_N and d_{N+1} the N_B-th and (N_B+1)-th smallest gas distances from i (d_1 = 0 is i):
//   2 h_i = (d_N + d_{N+1}) / 2,
// rounded to float and moved by float steps so that d_N < 2 h_i <= d_{N+1} holds in the exact
// double comparison r^2 < (2 h)^2 that every SPH loop uses. Then exactly N_B particles are inside.
// Ties: when d_N = d_{N+1} (lattices), or the two differ by less than the float resolution of h,
// no h gives exactly N_B; h_i is then the smallest float with d_N < 2 h_i, so the whole tied shell
// is inside (nngb > N_B) rather than some of the N_B nearest outside.
// Floor: h_i = max(h_i, h_min) (sph.h_min); a floored particle has nngb >= N_B.
// store.nngb[i] is always the true count of gas j (self included) with r_ij < 2 h_i.
#pragma once

#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length_kern.hpp"  // smoothing_length_between, support2
#include "sph/sph_params.hpp"

namespace mpsph {

// Sets store.h and store.nngb for gas [0, n_gas) and (re)builds the kd-tree in `nb` over the
// current gas positions (periodic ghosts as wide as the searches need). The N_B + 1 nearest
// neighbours of each particle stay in `nb` as candidates for the pair lists of compute_density,
// which then needs no second tree search. Throws mpsph::Error when
// there are fewer than N_B + 1 gas particles, or the N_B-th neighbour distance reaches half the
// smallest edge of a periodic box.
// Smoothing lengths of the active gas particles (all by default); the tree is rebuilt over all gas
// at the current positions.
// next_distance (optional): set to size n_gas with d_{N+1}, the canonical distance of the
// (N_B+1)-th nearest gas particle, for each active particle (0 for the others). A caller that
// holds only part of the gas (an MPI rank with its halo, parallel/sph_halo.hpp) knows from it
// that h_i is exact when every gas particle within max(d_{N+1}, 2 h_i) of i is present.
void compute_smoothing_lengths(ParticleStore& store, const Box& box, const SphParams& params,
                               SphNeighbours& nb, const ActiveSet& active = {},
                               std::vector<double>* next_distance = nullptr);

}  // namespace mpsph
