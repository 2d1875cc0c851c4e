// The order stage's host work on one process (what an MPI rank does every step, docs/mpi.md):
// order_particles after a small drift of an ordered store, and ParticleStore::permute of a shift
// (every entry moves, as after a migration), over every field of the table, at the OpenMP threads
// of the environment. Uniform random positions in the unit cube, all gas.
//
//   bench_order [N ...]   default: N = 4000000; three repetitions each (the machine may be shared)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/box.hpp"
#include "core/particle_order.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"

using namespace mpsph;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void run(std::size_t n) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {random_uniform(i, 1, kStreamSetup, 0), random_uniform(i, 1, kStreamSetup, 1),
                random_uniform(i, 1, kStreamSetup, 2)};
    s.id[i] = i;
    s.mass[i] = 1.0;
  }
  order_particles(s, Box{});
  std::vector<std::size_t> shift(n);
  for (std::size_t i = 0; i < n; ++i) shift[i] = (i + 1000) % n;
  for (int rep = 0; rep < 3; ++rep) {
    // A drift of 1e-4 of the cube: the order changes locally only.
    for (std::size_t i = 0; i < n; ++i)
      s.pos[i].x += 1e-4 * (random_uniform(i, uint64_t(10 + rep), kStreamSetup, 0) - 0.5);
    double t = now();
    order_particles(s, Box{});
    const double t_order = now() - t;
    t = now();
    s.permute(shift);
    const double t_permute = now() - t;
    std::printf("N %zu: order_particles %.0f ms, permute (shift) %.0f ms\n", n, 1e3 * t_order,
                1e3 * t_permute);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) run(4000000);
  for (int a = 1; a < argc; ++a) run(std::size_t(std::atof(argv[a])));
}
