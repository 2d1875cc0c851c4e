// The Evrard sphere's initial conditions made in parts (one per MPI rank, setups/evrard.hpp):
// the parts in order are the whole, bit for bit, and the lattice range is the lattice's slice.
#include "setups/evrard.hpp"

#include <cstring>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "setups/lattice.hpp"

using namespace mpsph;

TEST_CASE("evrard: the parts of P ranks, in order, are the whole sphere bit for bit",
          "[setups][evrard]") {
  EvrardParams p;
  p.n_target = 5000;
  p.mass = 1.0;
  p.radius = 1.0;
  p.u0 = 0.05;
  const ParticleStore whole = make_evrard(p);
  REQUIRE(whole.size() > 4000);
  for (const std::size_t parts : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(7)}) {
    INFO(parts << " parts");
    std::size_t at = 0, differ = 0;
    for (std::size_t r = 0; r < parts; ++r) {
      const ParticleStore s = make_evrard(p, r, parts);
      // Balanced to one particle.
      CHECK(s.size() + 1 >= whole.size() / parts);
      CHECK(s.size() <= whole.size() / parts + 1);
      for (std::size_t i = 0; i < s.size(); ++i, ++at) {
        differ += std::memcmp(&s.pos[i], &whole.pos[at], sizeof(Vec3d)) != 0;
        differ += s.id[i] != whole.id[at] || s.mass[i] != whole.mass[at] ||
                  s.u[i] != whole.u[at] || s.type[i] != whole.type[at];
      }
    }
    CHECK(at == whole.size());
    CHECK(differ == 0);
  }
  // The sphere's mass is the setup's.
  double m = 0.0;
  for (double x : whole.mass) m += x;
  CHECK(m == Approx(p.mass).epsilon(1e-12));
}

TEST_CASE("lattice: a range of the sphere's points is that slice of all of them",
          "[setups][lattice]") {
  const double d = 0.0731;
  const std::vector<Vec3d> all = lattice_in_sphere(1.0, d);
  CHECK(lattice_in_sphere_count(1.0, d) == all.size());
  // Inside the sphere, and about its volume / d^3 of them.
  for (const Vec3d& x : all) REQUIRE(norm2(x) < 1.0);
  CHECK(double(all.size()) == Approx(4.0 / 3.0 * cgs::kPi / (d * d * d)).epsilon(0.02));
  for (const std::size_t first : {std::size_t(0), std::size_t(1), all.size() / 3}) {
    const std::vector<Vec3d> part = lattice_in_sphere_range(1.0, d, first, 1000);
    REQUIRE(part.size() == 1000);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < part.size(); ++k)
      differ += std::memcmp(&part[k], &all[first + k], sizeof(Vec3d)) != 0;
    CHECK(differ == 0);
  }
  CHECK(lattice_in_sphere_range(1.0, d, all.size() - 5, 100).size() == 5);
}
