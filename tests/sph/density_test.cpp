// Density loop: lattice densities, the pair set against brute force, and div v / curl v of linear
// velocity fields.
#include "sph/density.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "sph/kernel_kern.hpp"
#include "sph/smoothing_length.hpp"
#include "sph_test_setup.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

void h_and_density(ParticleStore& s, const Box& box, SphNeighbours& nb) {
  const SphParams p;
  compute_smoothing_lengths(s, box, p, nb);
  compute_density(s, box, p, nb);
}

// Lattice of n^3 particles, spacing a, mass m = a^3: the true density is 1.
ParticleStore unit_density_lattice(int n, double a) {
  return gas_store(cubic_lattice({0, 0, 0}, a, n, n, n), a * a * a);
}

// Particles at least `depth` from every face of the cube [0, edge)^3.
bool interior(const Vec3d& x, double edge, double depth) {
  return std::min({x.x, x.y, x.z}) > depth && std::max({x.x, x.y, x.z}) < edge - depth;
}

// The M4 sum over a cubic lattice with 2h just above sqrt(5) a (the N_B = 50 tie rule) gives
// rho = 1.0042 rho_true and sum_j m_j r_ij dW/dr / rho = -3 x 0.9934 (lattice discretisation of
// the kernel integrals, computed once in double from the lattice sums). Checked to 1%.
constexpr double kLatticeTolerance = 0.01;

}  // namespace

TEST_CASE("density of a uniform lattice, open box: within 1% away from the edges",
          "[sph][density]") {
  const int n = 16;
  const double a = 0.1;
  ParticleStore s = unit_density_lattice(n, a);
  SphNeighbours nb;
  h_and_density(s, Box{}, nb);
  int checked = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!interior(s.pos[i], n * a, 4 * a)) continue;
    ++checked;
    CHECK(s.rho[i] == Approx(1.0).epsilon(kLatticeTolerance));
  }
  CHECK(checked == 8 * 8 * 8);
}

TEST_CASE("density of a uniform lattice, periodic box: within 1% everywhere", "[sph][density]") {
  const int n = 12;
  const double a = 0.25;
  const Box box = periodic_box({0, 0, 0}, {n * a, n * a, n * a});
  ParticleStore s = unit_density_lattice(n, a);
  SphNeighbours nb;
  h_and_density(s, box, nb);
  const auto [lo, hi] = std::minmax_element(s.rho.begin(), s.rho.end());
  CHECK(*lo == Approx(1.0).epsilon(kLatticeTolerance));
  CHECK(*hi == Approx(1.0).epsilon(kLatticeTolerance));
  // Every particle sees the same neighbourhood: equal to float round-off of ~57 terms.
  CHECK(*hi / *lo - 1.0 < 1e-5);
}

TEST_CASE("no missed pairs: pair lists equal the brute-force set r_ij < h_i + h_j",
          "[sph][density][pairs]") {
  const Box periodic = periodic_box({-1, -1, -1}, {2, 2, 2});
  for (const Box& box : {Box{}, periodic})
    for (const bool h_changed : {false, true}) {
      // Clustered about a point near a corner, so the periodic case has pairs across faces; h spans
      // three decades, so most pairs are asymmetric (h_i != h_j).
      ParticleStore s = gas_store(clustered_points(1500, {-0.9, 0.95, -1.0}, 0.8, 21), 1e-3);
      random_velocities(s, 1.0, 22);
      if (box.periodic) wrap_every_second(s, box);
      SphNeighbours nb;
      const SphParams p;
      compute_smoothing_lengths(s, box, p, nb);
      // Particles whose h changed after the smoothing-length stage cannot use its cached neighbour
      // candidates: they take the tree-search path.
      if (h_changed)
        for (std::size_t i = 0; i < s.size(); i += 3) s.h[i] *= 1.3f;
      compute_density(s, box, p, nb);
      std::size_t pairs = 0;
      for (std::size_t i = 0; i < s.size(); ++i) {
        std::vector<uint32_t> brute;
        double rho = 0.0;  // double reference of the density sum
        for (std::size_t j = 0; j < s.size(); ++j) {
          const double r2 = dist2(s, i, j, box);
          const double hs = double(s.h[i]) + double(s.h[j]);
          if (r2 < hs * hs) {
            rho += s.mass[j] * kernel_w(std::sqrt(r2), 0.5 * hs);
            if (j != i) brute.push_back(uint32_t(j));
          }
        }
        const std::vector<uint32_t> listed(nb.pairs_begin(i), nb.pairs_end(i));
        REQUIRE(listed == brute);  // exact set equality (both sorted)
        pairs += brute.size();
        // Float pair terms and float accumulation of ~50 positive terms: 1e-5.
        CHECK(s.rho[i] == Approx(rho).epsilon(1e-5));
      }
      CHECK(nb.num_pair_entries() == pairs);
    }
}

TEST_CASE("div v and curl v of linear velocity fields on a lattice", "[sph][density]") {
  const int n = 16;
  const double a = 0.1, edge = n * a;
  const Vec3d c{0.8, 0.8, 0.8};
  ParticleStore s = unit_density_lattice(n, a);
  SphNeighbours nb;
  const double k = 2.0;
  SECTION("compression on top of a large bulk velocity") {
    // v = V0 - k (x - c): div v = -3k, curl v = 0. V0 = 1e3 |k x| tests that relative velocities
    // are formed in double before the float pair terms.
    const Vec3d v0{1e3, -2e3, 5e2};
    for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] = v0 - k * (s.pos[i] - c);
    h_and_density(s, Box{}, nb);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!interior(s.pos[i], edge, 4 * a)) continue;
      CHECK(s.divv[i] == Approx(-3.0 * k).epsilon(kLatticeTolerance));
      // Zero by lattice symmetry; float round-off of terms of size ~k: 1e-4 k.
      CHECK(std::fabs(s.curlv[i]) < 1e-4 * k);
    }
  }
  SECTION("rigid rotation") {
    // v = Omega z x (x - c): |curl v| = 2 Omega, div v = 0.
    const double omega = k;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3d d = s.pos[i] - c;
      s.vel[i] = {-omega * d.y, omega * d.x, 0.0};
    }
    h_and_density(s, Box{}, nb);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!interior(s.pos[i], edge, 4 * a)) continue;
      CHECK(s.curlv[i] == Approx(2.0 * omega).epsilon(kLatticeTolerance));
      CHECK(std::fabs(s.divv[i]) < 1e-4 * omega);
    }
  }
}
