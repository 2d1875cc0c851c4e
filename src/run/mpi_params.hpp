// The `mpi:` section: settings of runs across MPI ranks (`mpsph-mpi`, docs/mpi.md). A
// single-process run reads and checks them too, so one config serves both programs.
#pragma once

namespace mpsph {

class Config;
class Schema;

struct MpiParams {
  // New domain cuts when the largest rank's cost exceeds the mean by more than this fraction
  // (parallel/domain_decomposition.hpp).
  double max_imbalance = 0.05;
};

void add_mpi_params(Schema& schema);
MpiParams mpi_params_from(const Config& cfg);

}  // namespace mpsph
