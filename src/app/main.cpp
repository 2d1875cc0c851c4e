// mpsph command-line entry point: `mpsph run | ics | info | params | ssp` (app/cli.hpp).
#include "app/cli.hpp"

int main(int argc, char** argv) {
  return mpsph::cli_main(argc, argv, nullptr);
}
