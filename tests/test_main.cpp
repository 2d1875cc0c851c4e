// main() for the Catch2 test executables, v2 and v3 alike. The GPU executable exits with 77
// (ctest: skipped) when this build has no CUDA backend or the machine has no GPU. The MPI
// executable (run by mpiexec) initialises MPI around the session.
#if MPSPH_CATCH2_MAJOR >= 3  // set by tests/CMakeLists.txt from the Catch2 package found
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#ifdef MPSPH_MPI_TEST_MAIN
#include <mpi.h>
#endif

#include "io/hdf5_handles.hpp"
#include "run/device.hpp"

int main(int argc, char* argv[]) {
  // As mpsph's main(): the durable-file tests leave a file whose flush failed (a full disk), which
  // HDF5's clean-up at exit would crash on (io/hdf5_handles.hpp).
  mpsph::h5::no_cleanup_at_exit();
#ifdef MPSPH_GPU_TEST_MAIN
  const auto gpu = mpsph::probe_gpu();
  if (!gpu.available) {
    std::printf("SKIPPED: GPU tests need a GPU: %s\n", gpu.reason.c_str());
    return 77;
  }
  std::printf("GPU: %s\n", gpu.name.c_str());
#endif
#ifdef MPSPH_MPI_TEST_MAIN
  // Every rank runs every test case (they are collective); the run fails when any rank fails.
  MPI_Init(&argc, &argv);
  int failed = Catch::Session().run(argc, argv) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
#else
  return Catch::Session().run(argc, argv);
#endif
}
