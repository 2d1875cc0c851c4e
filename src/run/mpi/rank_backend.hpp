// The step backend of the MPI ranks (`mpsph-mpi`, docs/mpi.md): the stages of the CPU backend
// under either time-step scheme on this rank's particles, with DistributedStepper
// (parallel/distributed_step.hpp) for what crosses ranks, run as the driver's stages: order
// (decomposition, migration, order - at the first substep of a segment), smoothing lengths,
// density (with the EOS and the SPH forces), gravity, end force, correct, and the time step (the
// limiter and wake-up across ranks); timing_notes() adds their split into halos, passes and LET
// parts. The time step and the next substep's tick are minima over all ranks; the conserved
// sums, the health bits and the particle counts are reduced over all ranks, so every rank sees
// the values of the whole run. The particles of the initial conditions or of a checkpoint may all
// sit on rank 0: the first order stage scatters them.
#pragma once

#include <memory>
#include <vector>

#include "core/physics_module.hpp"
#include "parallel/mpi_comm.hpp"
#include "run/device.hpp"
#include "run/mpi_params.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

// `requested` gpu (or auto with a GPU present): the SPH passes and the gravity tree of each rank
// run on a GPU of its host (rank among the host's ranks modulo its GPUs) on device copies of the
// rank's particles, the rest on the host (parallel/distributed_step.hpp). NotAcrossRanks
// (run/ranks.hpp) on every rank for what cannot run across ranks yet: a module whose model is not
// `none` and that does not run across ranks (PhysicsModule::runs_across_ranks; every module of
// today does), and what DistributedStepper refuses (direct or periodic gravity).
std::unique_ptr<StepBackend> make_rank_backend(
    const StepContext& ctx, Device requested,
    const std::vector<std::unique_ptr<PhysicsModule>>& modules, const MpiParams& mpi,
    const MpiComm& comm);

}  // namespace mpsph
