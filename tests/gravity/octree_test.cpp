// Structure and moments of the gravity octree (octree.hpp) against direct computation.
#include "gravity/octree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"

using namespace mpsph;

namespace {

struct Cloud {
  std::vector<Vec3d> pos;
  std::vector<double> mass;
  std::vector<float> eps;
};

// A clumpy cloud: a uniform cube plus a dense clump, unequal masses, two softening values.
Cloud make_cloud(std::size_t n) {
  Cloud c;
  for (uint32_t i = 0; i < n; ++i) {
    const double s = i % 3 == 0 ? 0.01 : 1.0;
    c.pos.push_back({s * random_uniform(i, 2, 9, 0) + 5.0, s * random_uniform(i, 2, 9, 1) - 3.0,
                     s * random_uniform(i, 2, 9, 2)});
    c.mass.push_back(0.1 + random_uniform(i, 2, 9, 3));
    c.eps.push_back(i % 2 ? 0.01f : 0.03f);
  }
  return c;
}

}  // namespace

TEST_CASE("octree: flat breadth-first layout with contiguous ranges", "[gravity][octree]") {
  const Cloud c = make_cloud(5000);
  Octree t;
  const int leaf_size = 12;
  t.build(c.pos.data(), c.mass.data(), c.eps.data(), c.pos.size(), leaf_size);
  const auto& nodes = t.nodes();
  REQUIRE(!nodes.empty());
  CHECK(nodes[0].begin == 0);
  CHECK(nodes[0].end == 5000);

  // order() is a permutation and the keys are sorted.
  std::vector<uint32_t> ord = t.order();
  std::sort(ord.begin(), ord.end());
  std::vector<uint32_t> iota(ord.size());
  std::iota(iota.begin(), iota.end(), 0u);
  CHECK(ord == iota);
  CHECK(std::is_sorted(t.keys().begin(), t.keys().end()));

  std::size_t leaf_particles = 0;
  for (int g = 0; g < t.generations(); ++g) {
    for (int32_t i = t.generation_begin(g); i < t.generation_begin(g + 1); ++i) {
      const OctreeNode& n = nodes[i];
      if (n.n_child == 0) {
        CHECK(n.end - n.begin <= leaf_size);  // no coincident keys in this cloud
        leaf_particles += std::size_t(n.end - n.begin);
        continue;
      }
      // Children: 2..8, in the next generation, tiling the parent's particle range in order.
      CHECK(n.n_child >= 2);
      CHECK(n.n_child <= 8);
      CHECK(n.child_begin >= t.generation_begin(g + 1));
      CHECK(n.child_begin + n.n_child <= t.generation_begin(g + 2));
      int32_t next = n.begin;
      for (int32_t k = n.child_begin; k < n.child_begin + n.n_child; ++k) {
        CHECK(nodes[k].begin == next);
        CHECK(nodes[k].end > nodes[k].begin);
        next = nodes[k].end;
      }
      CHECK(next == n.end);
    }
  }
  CHECK(leaf_particles == 5000);  // the leaves tile all particles exactly once
}

TEST_CASE("octree: node moments equal sums over the node's particles", "[gravity][octree]") {
  // Mass, centre of mass and second moments are accumulated in double and stored in float (mass,
  // quadrupole): rel 1e-5 covers the float rounding of the children's moments in the upward pass.
  const Cloud c = make_cloud(3000);
  Octree t;
  t.build(c.pos.data(), c.mass.data(), c.eps.data(), c.pos.size(), 8);
  const auto& ord = t.order();
  for (const OctreeNode& n : t.nodes()) {
    double m = 0.0;
    Vec3d mx{0, 0, 0};
    float eps_max = 0.0f;
    for (int32_t k = n.begin; k < n.end; ++k) {
      m += c.mass[ord[k]];
      mx += c.mass[ord[k]] * c.pos[ord[k]];
      eps_max = std::max(eps_max, c.eps[ord[k]]);
    }
    const Vec3d com = (1.0 / m) * mx;
    double s[3][3] = {}, eps2 = 0.0;
    for (int32_t k = n.begin; k < n.end; ++k) {
      const Vec3d x = c.pos[ord[k]];
      const Vec3d d = x - com;
      const double dd[3] = {d.x, d.y, d.z};
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) s[a][b] += c.mass[ord[k]] * dd[a] * dd[b];
      eps2 += c.mass[ord[k]] * double(c.eps[ord[k]]) * double(c.eps[ord[k]]);
      // The bounding box holds every particle.
      CHECK(std::fabs(x.x - n.box_centre.x) <= n.box_half.x);
      CHECK(std::fabs(x.y - n.box_centre.y) <= n.box_half.y);
      CHECK(std::fabs(x.z - n.box_centre.z) <= n.box_half.z);
    }
    const double tr = s[0][0] + s[1][1] + s[2][2];
    const double scale = tr + 1e-300;  // quadrupole components relative to its natural size
    CHECK(n.mp.mass == Approx(m).epsilon(1e-5));
    CHECK(norm(n.com - com) <= 1e-6 * (n.size + 1e-12));
    CHECK(std::fabs(n.mp.qxx - (3 * s[0][0] - tr)) <= 1e-5 * scale);
    CHECK(std::fabs(n.mp.qxy - 3 * s[0][1]) <= 1e-5 * scale);
    CHECK(std::fabs(n.mp.qyz - 3 * s[1][2]) <= 1e-5 * scale);
    CHECK(std::fabs(n.mp.qzz - (3 * s[2][2] - tr)) <= 1e-5 * scale);
    CHECK(n.mp.trace == Approx(tr).epsilon(1e-5).margin(1e-30));
    CHECK(n.eps_max == eps_max);
    CHECK(n.eps2_mean == Approx(eps2 / m).epsilon(1e-5));
    // l is the longest edge of the box (rounded up by at most 1e-6 relative).
    CHECK(n.size == Approx(2.0 * std::max({n.box_half.x, n.box_half.y, n.box_half.z})));
  }
}

TEST_CASE("octree: coincident particles, one particle, none", "[gravity][octree]") {
  SECTION("keys that no level separates stay in one leaf") {
    std::vector<Vec3d> pos(100, Vec3d{1.0, 2.0, 3.0});
    pos.push_back({2.0, 2.0, 3.0});
    std::vector<double> mass(pos.size(), 1.0);
    std::vector<float> eps(pos.size(), 0.1f);
    Octree t;
    t.build(pos.data(), mass.data(), eps.data(), pos.size(), 4);
    REQUIRE(t.nodes().size() == 3);  // root, the 100 coincident particles, the lone one
    CHECK(t.nodes()[0].mp.mass == 101.0f);
    CHECK(t.nodes()[0].com.x == Approx(1.0 + 1.0 / 101.0));
  }
  SECTION("single particle") {
    const Vec3d x{0.5, 0.5, 0.5};
    const double m = 2.0;
    const float e = 0.1f;
    Octree t;
    t.build(&x, &m, &e, 1, 8);
    REQUIRE(t.nodes().size() == 1);
    CHECK(t.nodes()[0].mp.mass == 2.0f);
    CHECK(t.nodes()[0].mp.trace == 0.0f);
  }
  SECTION("empty") {
    Octree t;
    t.build(nullptr, nullptr, nullptr, 0, 8);
    CHECK(t.nodes().empty());
    CHECK(t.generations() == 0);
  }
}
