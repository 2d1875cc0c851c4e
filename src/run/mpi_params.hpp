// The `mpi:` section: settings of runs across MPI ranks (`mpsph-mpi`, docs/mpi.md). A
// single-process run reads and checks them too, so one config serves both programs.
#pragma once

#include "core/particle_cost.hpp"  // kDefaultMaxImbalance

namespace mpsph {

class Config;
class Schema;

// Where the particles of a GPU rank live (mpi.gpu_ranks).
enum class GpuRanksMode {
  Auto,    // Device when the run allows it (global time steps, no physics module), else Host
  Device,  // on the rank's GPU for the whole run (run/gpu_ranks.hpp)
  Host,    // on the host, with the SPH passes and the gravity tree on the GPU
};
const char* gpu_ranks_name(GpuRanksMode m);

// How the device-resident GPU ranks send their halos (mpi.gpu_transfers).
enum class GpuTransfers {
  Auto,  // GPU to GPU when every rank is on one node and CUDA IPC works there, else Host
  Peer,  // GPU to GPU through CUDA IPC (an error when that cannot work)
  Host,  // staged through host memory and MPI
};
const char* gpu_transfers_name(GpuTransfers t);

struct MpiParams {
  // New domain cuts when the largest rank's cost exceeds the mean by more than this fraction
  // (parallel/domain_decomposition.hpp).
  double max_imbalance = kDefaultMaxImbalance;
  // A particle's gravity in the decomposition's cost weights, in units of one SPH neighbour
  // (core/particle_cost.hpp), while they are not measured.
  double gravity_cost = 1.0;
  // The cost weights measured on each rank from its own work times (true), or the model of
  // gravity_cost and 1 per neighbour throughout (mpi.cost_weights).
  bool measured_costs = true;
  GpuRanksMode gpu_ranks = GpuRanksMode::Auto;
  GpuTransfers gpu_transfers = GpuTransfers::Auto;
};

void add_mpi_params(Schema& schema);
MpiParams mpi_params_from(const Config& cfg);

}  // namespace mpsph
