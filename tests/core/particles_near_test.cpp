// particles_near (core/particles_near.hpp): the grid finds exactly the particles a scan of every
// particle against every point finds, in open and periodic boxes (also with fewer than three
// cells along an axis, where the 27 neighbour cells repeat), of the asked type and range only.
#include "core/particles_near.hpp"

#include <cmath>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"

using namespace mpsph;

namespace {

std::vector<uint32_t> scan(const ParticleView& p, std::size_t begin, std::size_t end, uint8_t type,
                           const std::vector<Vec3d>& points, const std::vector<double>& radius,
                           const Box& box) {
  std::vector<uint32_t> out;
  for (std::size_t i = begin; i < end; ++i) {
    if (p.type[i] != type) continue;
    for (std::size_t q = 0; q < points.size(); ++q)
      if (norm2(min_image(p.pos[i] - points[q], box)) <= radius[q] * radius[q]) {
        out.push_back(uint32_t(i));
        break;
      }
  }
  return out;
}

}  // namespace

TEST_CASE("particles_near finds exactly the particles within the radius of a point",
          "[core][particles_near]") {
  const std::size_t n = 4000;
  ParticleStore s;
  s.resize(n);
  auto u = [](std::size_t i, uint32_t k) { return random_uniform(i, 7, kStreamSetup, k); };
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {u(i, 0) * 2.0 - 1.0, u(i, 1) * 2.0 - 1.0, u(i, 2) * 0.5};
    s.type[i] = u(i, 3) < 0.8 ? kGas : kSink;
  }
  std::vector<Vec3d> points;
  for (std::size_t q = 0; q < 40; ++q)
    points.push_back({u(n + q, 0) * 2.4 - 1.2, u(n + q, 1) * 2.4 - 1.2, u(n + q, 2) * 0.6});
  struct Case {
    Box box;
    double radius;
  };
  const Case cases[] = {
      {Box{}, 0.05},                                // open, many cells
      {Box{}, 0.3},                                 // open, few
      {Box{true, {-1, -1, 0}, {2, 2, 0.5}}, 0.07},  // periodic, many cells
      {Box{true, {-1, -1, 0}, {2, 2, 0.5}}, 0.2},   // periodic, 2 cells along z
      {Box{true, {-1, -1, 0}, {2, 2, 0.5}}, 0.9},   // periodic, 2 along x, y and 1 along z
  };
  for (const Case& c : cases) {
    // Points outside a periodic box stand for their images inside it.
    const ParticleView p = s.view();
    for (const uint8_t type : {uint8_t(kGas), uint8_t(kSink)}) {
      const std::vector<uint32_t> want =
          scan(p, 100, n - 100, type, points, std::vector<double>(points.size(), c.radius), c.box);
      const std::vector<uint32_t> got =
          particles_near(p, 100, n - 100, type, points, c.radius, c.box);
      INFO("periodic " << c.box.periodic << ", radius " << c.radius << ", type " << int(type));
      CHECK(got == want);
      CHECK(!want.empty());
    }
  }
  CHECK(particles_near(s.view(), 0, n, kGas, {}, 0.1, Box{}).empty());
  // A radius per point, over three decades (several classes of radii, each on its own grid).
  std::vector<double> radius;
  for (std::size_t q = 0; q < points.size(); ++q)
    radius.push_back(0.002 * std::pow(1.2, double(q)));
  for (const Box& box : {Box{}, Box{true, {-1, -1, 0}, {2, 2, 0.5}}}) {
    const std::vector<uint32_t> want = scan(s.view(), 0, n, kGas, points, radius, box);
    INFO("periodic " << box.periodic);
    CHECK(particles_near(s.view(), 0, n, kGas, points, radius, box) == want);
    CHECK(want.size() > 100);
  }
}

TEST_CASE("pairs_near finds exactly the (particle, point) pairs within the radius",
          "[core][particles_near]") {
  const std::size_t n = 3000;
  ParticleStore s;
  s.resize(n);
  auto u = [](std::size_t i, uint32_t k) { return random_uniform(i, 11, kStreamSetup, k); };
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[i] = {u(i, 0), u(i, 1), u(i, 2)};
    s.type[i] = u(i, 3) < 0.9 ? kGas : kSink;
  }
  std::vector<Vec3d> points;
  for (std::size_t q = 0; q < 25; ++q) points.push_back({u(n + q, 0), u(n + q, 1), u(n + q, 2)});
  points.push_back(points[3]);  // two points at one place: a particle pairs with both
  for (const Box& box : {Box{}, Box{true, {0, 0, 0}, {1, 1, 1}}})
    for (const double radius : {0.06, 0.2, 0.6}) {
      std::vector<std::pair<uint32_t, uint32_t>> want;
      for (std::size_t i = 10; i < n; ++i)
        for (std::size_t q = 0; q < points.size(); ++q)
          if (s.type[i] == kGas && norm2(min_image(s.pos[i] - points[q], box)) <= radius * radius)
            want.push_back({uint32_t(i), uint32_t(q)});
      INFO("periodic " << box.periodic << ", radius " << radius);
      CHECK(pairs_near(s.view(), 10, n, kGas, points, radius, box) == want);
      CHECK(want.size() > points.size());
    }
}
