// The halo boxes (sph/search_box.hpp) and their levels (sph/box_levels.hpp): how runs of
// particles become boxes, and that the levels find exactly the boxes a brute force finds.
#include "sph/box_levels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "sph/search_box.hpp"

using namespace mpsph;

namespace {

// n points: clusters of 40 along a curve with jumps between them (as a key order has), radii
// from 0.01 to 0.1 times `r`, a few of r (a particle of large h).
std::vector<BoxPoint> points(std::size_t n, double scale = 1.0) {
  std::vector<BoxPoint> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = double(i / 40);
    const Vec3d centre{std::fmod(0.37 * c, 1.0), std::fmod(0.61 * c, 1.0),
                       std::fmod(0.13 * c, 1.0)};
    const double r =
        scale * (i % 97 == 0 ? 1.0 : 0.01 + 0.09 * random_uniform(i, 1, kStreamSetup, 3));
    p[i] = {{centre.x + 0.05 * random_uniform(i, 1, kStreamSetup, 0),
             centre.y + 0.05 * random_uniform(i, 1, kStreamSetup, 1),
             centre.z + 0.05 * random_uniform(i, 1, kStreamSetup, 2)},
            r,
            0.5 * r};
  }
  return p;
}

struct At {
  const std::vector<BoxPoint>& p;
  BoxPoint operator()(std::size_t k) const { return p[k]; }
};

struct Collect {
  std::vector<SearchBox>& out;
  void operator()(const SearchBox& b) { out.push_back(b); }
};

// The boxes of `rule` over all of p, chunk by chunk, and which box holds each point.
std::vector<SearchBox> grow(const std::vector<BoxPoint>& p, BoxRule rule,
                            std::vector<std::size_t>& box_of) {
  std::vector<SearchBox> out;
  Collect emit{out};
  box_of.assign(p.size(), 0);
  for (std::size_t c = 0; c < p.size(); c += rule.chunk) {
    const std::size_t end = std::min(p.size(), c + rule.chunk);
    // Within a chunk the boxes are consecutive runs: re-grow to learn each point's box.
    const std::size_t first_box = out.size();
    grow_boxes(At{p}, c, end, rule.stretch, emit);
    std::size_t b = first_box;
    for (std::size_t k = c; k < end; ++k) {
      const SearchBox& x = out[b];
      const bool inside = p[k].x.x >= x.lo.x && p[k].x.x <= x.hi.x && p[k].x.y >= x.lo.y &&
                          p[k].x.y <= x.hi.y && p[k].x.z >= x.lo.z && p[k].x.z <= x.hi.z;
      if (!inside) ++b;  // runs are consecutive: the next point opens the next box
      box_of[k] = b;
    }
  }
  return out;
}

// The layout's rules (sph/box_levels.hpp): each rank of [first, end) with boxes in whole supers
// of its own, in rank order, with room for its boxes; super_rank names them.
void box_layout_check(const RankBoxLayout& l, const std::vector<std::size_t>& off,
                      std::size_t first, std::size_t end) {
  constexpr std::size_t kSuper = std::size_t(kBoxGroup) * kBoxGroup;
  REQUIRE(l.at.size() == end - first);
  REQUIRE(l.n_boxes % kSuper == 0);
  REQUIRE(l.super_rank.size() == l.n_boxes / kSuper);
  std::size_t next = 0;
  for (std::size_t r = first; r < end; ++r) {
    const std::size_t n = off[r + 1] - off[r], supers = (n + kSuper - 1) / kSuper;
    CHECK(l.at[r - first] == next);
    for (std::size_t s = next / kSuper; s < next / kSuper + supers; ++s)
      CHECK(l.super_rank[s] == r - first);
    next += supers * kSuper;
  }
  CHECK(next == l.n_boxes);
}

}  // namespace

TEST_CASE("halo boxes: runs within chunks, at most stretch scales wide, their largest radius",
          "[halo][boxes]") {
  const std::vector<BoxPoint> p = points(3000);
  for (const BoxRule rule : {kSearchBoxes, kDomainBoxes}) {
    INFO("chunk " << rule.chunk << ", stretch " << rule.stretch);
    std::vector<std::size_t> box_of;
    const std::vector<SearchBox> boxes = grow(p, rule, box_of);
    REQUIRE(box_of.back() + 1 == boxes.size());
    // Each box: the bounds, the largest radius and the largest scale of its run, exactly.
    std::size_t wrong = 0, too_wide = 0, crossing = 0;
    for (std::size_t b = 0, k = 0; b < boxes.size(); ++b) {
      const std::size_t first = k;
      SearchBox e{p[k].x, p[k].x, 0.0};
      double scale = 0.0;
      for (; k < p.size() && box_of[k] == b; ++k) {
        e.lo = {std::min(e.lo.x, p[k].x.x), std::min(e.lo.y, p[k].x.y), std::min(e.lo.z, p[k].x.z)};
        e.hi = {std::max(e.hi.x, p[k].x.x), std::max(e.hi.y, p[k].x.y), std::max(e.hi.z, p[k].x.z)};
        e.radius = std::max(e.radius, p[k].radius);
        scale = std::max(scale, p[k].scale);
      }
      crossing += first / rule.chunk != (k - 1) / rule.chunk;
      const SearchBox& g = boxes[b];
      wrong += g.lo.x != e.lo.x || g.lo.y != e.lo.y || g.lo.z != e.lo.z || g.hi.x != e.hi.x ||
               g.hi.y != e.hi.y || g.hi.z != e.hi.z || g.radius != e.radius;
      const double w = rule.stretch * scale;
      too_wide += g.hi.x - g.lo.x > w || g.hi.y - g.lo.y > w || g.hi.z - g.lo.z > w;
      // A run ends only where the next point of its chunk would make it too wide.
      if (k < p.size() && k % rule.chunk != 0) {
        const double s = std::max(scale, p[k].scale) * rule.stretch;
        const bool fits = std::max(e.hi.x, p[k].x.x) - std::min(e.lo.x, p[k].x.x) <= s &&
                          std::max(e.hi.y, p[k].x.y) - std::min(e.lo.y, p[k].x.y) <= s &&
                          std::max(e.hi.z, p[k].x.z) - std::min(e.lo.z, p[k].x.z) <= s;
        wrong += fits;
      }
    }
    CHECK(wrong == 0);
    CHECK(too_wide == 0);
    CHECK(crossing == 0);
    // The jumps between clusters split the runs: more boxes than chunks.
    CHECK(boxes.size() > (p.size() + rule.chunk - 1) / rule.chunk);
  }
}

TEST_CASE("box levels: the boxes near a query are those a brute force finds", "[halo][boxes]") {
  const std::vector<BoxPoint> p = points(5000, 0.1);  // small boxes: more than 1024 of them
  std::vector<std::size_t> box_of;
  const BoxLevels lv = box_levels(grow(p, kSearchBoxes, box_of));
  REQUIRE(lv.groups.size() == (lv.boxes.size() + kBoxGroup - 1) / kBoxGroup);
  REQUIRE(lv.supers.size() == (lv.groups.size() + kBoxGroup - 1) / kBoxGroup);
  REQUIRE(lv.supers.size() > 1);  // three levels in use
  const Box open{};
  Box periodic;
  periodic.periodic = true;
  periodic.lo = {0, 0, 0};
  periodic.size = {1.2, 1.2, 1.2};
  for (const Box& box : {open, periodic}) {
    std::size_t differ = 0, found = 0;
    for (uint64_t q = 0; q < 300; ++q) {
      const Vec3d lo{1.2 * random_uniform(q, 2, kStreamSetup, 0),
                     1.2 * random_uniform(q, 2, kStreamSetup, 1),
                     1.2 * random_uniform(q, 2, kStreamSetup, 2)};
      const double ext = q % 2 ? 0.0 : 0.05;  // points and boxes
      const Vec3d hi{lo.x + ext, lo.y + ext, lo.z + ext};
      const double r = 0.02 * double(q % 5);
      std::vector<std::size_t> got;
      boxes_near(lv, lo, hi, r, 1e-6, box, got);
      std::vector<std::size_t> want;
      for (std::size_t b = 0; b < lv.boxes.size(); ++b)
        if (box_near(lo, hi, r, lv.boxes[b], 1e-6, box)) want.push_back(b);
      differ += got != want;
      differ += any_box_near(lv, lo, hi, r, 1e-6, box) != !want.empty();
      found += want.size();
    }
    CHECK(differ == 0);
    CHECK(found > 0);
  }
}

TEST_CASE(
    "rank box layout: each super one rank's boxes, the ranks near a query those of a brute force",
    "[halo][boxes]") {
  const std::vector<BoxPoint> p = points(6000, 0.1);
  std::vector<std::size_t> box_of;
  const std::vector<SearchBox> boxes = grow(p, kSearchBoxes, box_of);
  REQUIRE(boxes.size() > 2100);
  // Five ranks: rank 2 without boxes, rank 3 with a few (less than a group); the batch is
  // ranks 1 to 4.
  const std::size_t a = boxes.size() / 2, b = a + 20;
  const std::vector<std::size_t> offsets = {0, 300, a, a, b, boxes.size()};
  const RankBoxLayout l = rank_box_layout(offsets, 1, 5);
  box_layout_check(l, offsets, 1, 5);
  // The boxes placed so (as the GPU places them), as levels.
  std::vector<SearchBox> placed(l.n_boxes, empty_search_box());
  for (std::size_t r = 1; r < 5; ++r)
    std::copy(boxes.begin() + std::ptrdiff_t(offsets[r]),
              boxes.begin() + std::ptrdiff_t(offsets[r + 1]),
              placed.begin() + std::ptrdiff_t(l.at[r - 1]));
  const BoxLevels lv = box_levels(placed);
  REQUIRE(lv.supers.size() == l.super_rank.size());
  constexpr std::size_t kSuper = std::size_t(kBoxGroup) * kBoxGroup;
  Box periodic;
  periodic.periodic = true;
  periodic.lo = {0, 0, 0};
  periodic.size = {1.2, 1.2, 1.2};
  for (const Box& box : {Box{}, periodic}) {
    // An empty box is near nothing, however large the query's radius.
    CHECK_FALSE(box_near({0.5, 0.5, 0.5}, {0.6, 0.6, 0.6}, 10.0, empty_search_box(), 1e-6, box));
    std::size_t differ = 0, found = 0;
    for (uint64_t q = 0; q < 300; ++q) {
      const Vec3d lo{1.2 * random_uniform(q, 3, kStreamSetup, 0),
                     1.2 * random_uniform(q, 3, kStreamSetup, 1),
                     1.2 * random_uniform(q, 3, kStreamSetup, 2)};
      const double r = 0.02 * double(q % 5);
      std::vector<std::size_t> got;
      boxes_near(lv, lo, lo, r, 1e-6, box, got);
      unsigned got_ranks = 0, want_ranks = 0;
      for (const std::size_t i : got) got_ranks |= 1u << l.super_rank[i / kSuper];
      for (std::size_t k = 1; k < 5; ++k)
        for (std::size_t i = offsets[k]; i < offsets[k + 1]; ++i)
          if (box_near(lo, lo, r, boxes[i], 1e-6, box)) want_ranks |= 1u << (k - 1);
      differ += got_ranks != want_ranks;
      found += want_ranks != 0;
    }
    CHECK(differ == 0);
    CHECK(found > 0);
  }
}
