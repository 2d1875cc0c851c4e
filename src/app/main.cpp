// mpsph command-line entry point: `mpsph run | ics | info | params | ssp` (app/cli.hpp).
#include "app/cli.hpp"
#include "app/heap_policy.hpp"

int main(int argc, char** argv) {
  mpsph::keep_freed_heap_memory();
  return mpsph::cli_main(argc, argv, nullptr);
}
