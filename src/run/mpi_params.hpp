// The `mpi:` section: settings of runs across MPI ranks (`mpsph-mpi`, docs/mpi.md). A
// single-process run reads and checks them too, so one config serves both programs.
#pragma once

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

struct MpiParams {
  // New domain cuts when the largest rank's cost exceeds the mean by more than this fraction
  // (parallel/domain_decomposition.hpp).
  double max_imbalance = 0.05;
  GpuRanksMode gpu_ranks = GpuRanksMode::Auto;
};

void add_mpi_params(Schema& schema);
MpiParams mpi_params_from(const Config& cfg);

}  // namespace mpsph
