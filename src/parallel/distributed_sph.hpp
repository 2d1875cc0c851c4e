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
// it, (Morton key in the global cube, id); every pair list is sorted by store index, so each sum
// runs over the same neighbours in the same order as on one process and the results are the same
// bit for bit (tests/parallel/distributed_sph_mpi.cpp).
#pragma once

#include <cstddef>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "sph/sph_passes.hpp"

namespace mpsph {

struct DistributedSphReport {
  int h_rounds = 0;              // halo rounds until every h was exact (same on every rank)
  std::size_t ghosts_h = 0;      // ghosts this rank received in the last smoothing-length round
  std::size_t ghosts_pairs = 0;  // ghosts this rank received for the density and forces
  std::size_t n_local_gas = 0;   // this rank's gas particles
  // Wall seconds on this rank: the smoothing-length rounds and the density-and-forces part, each
  // with its halos, and the passes of each (the rest: halo selection, exchange, ordering).
  double h_s = 0.0, pairs_s = 0.0, h_passes_s = 0.0, pairs_passes_s = 0.0;
};

// Sets h, nngb, rho, divv, curlv, pressure, csound, balsara (and u for a non-adiabatic EOS), and
// the hydrodynamic acc, dudt and vsig of the local gas (collective). The store holds this rank's
// particles with gas first (as the order stage leaves it); it keeps its order. Every particle
// is active (block time steps across ranks are not supported yet). The passes run on `passes`'
// backend (sph/sph_passes.hpp; null: the CPU's OpenMP drivers); the halos are the same for both.
// The two halves, collective each: 1. h and nngb; 2. with every h final, the rest. `rep` collects
// both halves' numbers (distributed_sph_forces calls the two). `cube`: global_key_cube of the
// particles as they are (the positions do not change between the halves).
void distributed_smoothing_lengths(ParticleStore& store, const Box& box, const KeyCube& cube,
                                   const SphParams& sph, const MpiComm& comm, SphPasses& passes,
                                   DistributedSphReport& rep);
void distributed_density_forces(ParticleStore& store, const Box& box, const KeyCube& cube,
                                const SphParams& sph, const EosParams& eos, const MpiComm& comm,
                                SphPasses& passes, DistributedSphReport& rep);
DistributedSphReport distributed_sph_forces(ParticleStore& store, const Box& box,
                                            const SphParams& sph, const EosParams& eos,
                                            const MpiComm& comm, SphPasses* passes = nullptr);

}  // namespace mpsph
