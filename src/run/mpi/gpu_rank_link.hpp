// The GpuRanks of `mpsph-mpi` (run/gpu_ranks.hpp): the device-resident GPU ranks' stages across
// ranks, with the MPI layer (parallel/). What crosses the PCIe bus per step:
// - order stage: the positions, types and neighbour counts of the rank's particles (the domain
//   decomposition's keys and weights, 33 bytes each), the records of the particles that migrate
//   (every field), then the positions, masses and types again after the device sort (the gravity
//   tree's host copy, 33 bytes) and the gas' pos, vel, mass, h, id, type (69 bytes) for the halos;
// - SPH: the ghosts' fields up, h (after the smoothing lengths) and rho, pressure, csound,
//   balsara (after the density) of the local gas down;
// - gravity: the octree down (GpuGravity::download_tree), |acc_grav| for the relative criterion,
//   the received locally essential trees up.
// The halo and LET selection, the exchanges and the decomposition run on the host (OpenMP), on
// those copies only: no host stage touches every field of every particle.
#pragma once

#include <memory>

#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "run/gpu_ranks.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

// `ctx`: the run's (its box is read at each stage: final once the initial conditions are in
// place). Uses the current CUDA device. mpsph::Error in a build without CUDA.
std::unique_ptr<GpuRanks> make_gpu_rank_link(const StepContext& ctx, const MpiComm& comm,
                                             const DecompositionParams& decomposition);

}  // namespace mpsph
