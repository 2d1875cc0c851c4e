// The GpuRanks of `mpsph-mpi` (run/gpu_ranks.hpp): the device-resident GPU ranks' stages across
// ranks, with the MPI layer (parallel/). What crosses the PCIe bus per step:
// - order stage: the owners are found on the GPU while the cuts stand (run/rank_owners.hpp):
//   the loads, the counts and the records of the particles that migrate (every field) cross; a
//   re-cut downloads keys and weights (positions, types, neighbour counts) first;
// - SPH: the search boxes, the lists of the particles each other rank needs, and the ghosts'
//   records - or, GPU to GPU (mpi.gpu_transfers, parallel/device_all_to_all.hpp), not even those;
// - gravity: the target boxes, and the locally essential trees selected on the GPU
//   (gravity/let_gpu.hpp) down, the received ones up - or GPU to GPU with the halos.
// No host stage touches every particle of the rank.
#pragma once

#include <memory>

#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "run/gpu_ranks.hpp"
#include "run/mpi_params.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

// `ctx`: the run's (its box is read at each stage: final once the initial conditions are in
// place). Uses the current CUDA device; collective (`transfers` may try the GPUs' IPC).
// mpsph::Error in a build without CUDA, or when transfers is Peer and IPC cannot work.
std::unique_ptr<GpuRanks> make_gpu_rank_link(const StepContext& ctx, const MpiComm& comm,
                                             const DecompositionParams& decomposition,
                                             GpuTransfers transfers);

}  // namespace mpsph
