// mpsph-mpi entry point: `mpiexec -n N mpsph-mpi run ...`, the run across MPI ranks (docs/mpi.md;
// app/cli.hpp). Built only when MPI is found.
#include <mpi.h>

#include <cstdio>

#include "app/cli.hpp"
#include "app/heap_policy.hpp"
#include "run/mpi/mpi_ranks.hpp"

int main(int argc, char** argv) {
  mpsph::keep_freed_heap_memory();
  // OpenMP threads inside a rank; only the thread that initialised MPI calls it.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = 0;
  {
    const auto ranks = mpsph::make_mpi_ranks();
    code = mpsph::cli_main(argc, argv, ranks.get());
  }
  // The driver raises its errors on every rank together (run/simulation.cpp, on_root), and the
  // usage and config checks run on every rank alike: exit codes 0, 2, 3 and 4 finish MPI
  // normally. An error that may be one rank's alone (1: I/O, memory, an internal error) aborts
  // the job, so that no rank waits for it in a collective call.
  if (code == 0 || code == 2 || code == 3 || code == 4) {
    MPI_Finalize();
    return code;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  return code;
}
