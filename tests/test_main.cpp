// main() for the Catch2 test executables, v2 and v3 alike. The GPU executable exits with 77
// (ctest: skipped) when this build has no CUDA backend or the machine has no GPU.
#if MPSPH_CATCH2_MAJOR >= 3  // set by tests/CMakeLists.txt from the Catch2 package found
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#include "run/device.hpp"

int main(int argc, char* argv[]) {
#ifdef MPSPH_GPU_TEST_MAIN
  const auto gpu = mpsph::probe_gpu();
  if (!gpu.available) {
    std::printf("SKIPPED: GPU tests need a GPU: %s\n", gpu.reason.c_str());
    return 77;
  }
  std::printf("GPU: %s\n", gpu.name.c_str());
#endif
  return Catch::Session().run(argc, argv);
}
