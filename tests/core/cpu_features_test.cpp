// The CPU kernels' AVX-512 copies (smoothing lengths, density, SPH forces; tree gravity has its
// own test in tests/gravity/tree_gravity_test.cpp) give the baseline copies' results bit for bit:
// restarts and the CPU/GPU comparisons rely on the CPU backend giving the same bits on every
// x86-64 machine, with or without AVX-512 (core/cpu_features.hpp).
#include "core/cpu_features.hpp"

#include <cstring>
#include <vector>

#include "catch.hpp"
#include "core/particle_order.hpp"
#include "core/rng.hpp"
#include "setups/evrard.hpp"
#include "sph/density.hpp"
#include "sph/eos_params.hpp"
#include "sph/force.hpp"
#include "sph/smoothing_length.hpp"
#include "sph/sph_params.hpp"

using namespace mpsph;

namespace {

// Restores the switch however the test ends.
struct Avx512Copies {
  explicit Avx512Copies(bool on) { avx512_copies_enabled() = on; }
  ~Avx512Copies() { avx512_copies_enabled() = true; }
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("CPU kernels: the AVX-512 copies of the SPH passes give the baseline copies' bits",
          "[core][sph][avx512]") {
  if (!cpu_has_avx512())
    WARN("this CPU has no AVX-512: both runs take the baseline copies, the comparison is trivial");
  EvrardParams ep;
  ep.n_target = 20000;
  ParticleStore start = make_evrard(ep);
  const Box box;
  order_particles(start, box);
  SphParams sph;
  EosParams eos;
  {
    SphNeighbours nb;
    compute_smoothing_lengths(start, box, sph, nb);  // the previous h of the passes below
  }
  // A small random drift and random velocities: the previous h is then not exact (the grouped
  // previous-h search with its AVX-512 leaf tests), and div v, curl v and the viscosity act.
  for (std::size_t i = 0; i < start.size(); ++i) {
    for (uint32_t k = 0; k < 3; ++k) {
      const double d = 0.004 * (random_uniform(i, 1, kStreamSetup, k) - 0.5);
      (&start.pos[i].x)[k] += d;
      (&start.vel[i].x)[k] = random_uniform(i, 2, kStreamSetup, k) - 0.5;
    }
  }
  auto passes = [&](bool avx512) {
    const Avx512Copies mode(avx512);
    ParticleStore s = start;
    SphNeighbours nb;
    compute_smoothing_lengths(s, box, sph, nb);
    compute_density(s, box, sph, nb);
    prepare_force(s, eos, sph);
    compute_sph_forces(s, box, sph, nb);
    return s;
  };
  const ParticleStore v = passes(true), b = passes(false);
  CHECK(same_bits(v.h, b.h));
  CHECK(same_bits(v.nngb, b.nngb));
  CHECK(same_bits(v.rho, b.rho));
  CHECK(same_bits(v.divv, b.divv));
  CHECK(same_bits(v.curlv, b.curlv));
  CHECK(same_bits(v.pressure, b.pressure));
  CHECK(same_bits(v.balsara, b.balsara));
  CHECK(same_bits(v.acc, b.acc));
  CHECK(same_bits(v.dudt, b.dudt));
  CHECK(same_bits(v.vsig, b.vsig));
  CHECK(v.rho[0] > 0.0f);  // the passes ran
  CHECK(avx512_copies_enabled());
}
