// mpsph command-line entry point.
#include <cstdio>

int main() {
  std::puts("mpsph " MPSPH_VERSION);
  return 0;
}
