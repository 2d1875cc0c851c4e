#include "sph/box_levels.hpp"

#include <algorithm>
#include <limits>

namespace mpsph {

std::vector<SearchBox> box_unions(const std::vector<SearchBox>& in, std::size_t group) {
  std::vector<SearchBox> out((in.size() + group - 1) / group, empty_search_box());
  for (std::size_t k = 0; k < in.size(); ++k) {
    SearchBox& u = out[k / group];
    const SearchBox& b = in[k];
    u.lo = {std::min(u.lo.x, b.lo.x), std::min(u.lo.y, b.lo.y), std::min(u.lo.z, b.lo.z)};
    u.hi = {std::max(u.hi.x, b.hi.x), std::max(u.hi.y, b.hi.y), std::max(u.hi.z, b.hi.z)};
    u.radius = std::max(u.radius, b.radius);
  }
  return out;
}

namespace {

// Calls visit(b) for every box b near the query, in order, until it returns true; returns
// whether one did.
template <class Visit>
bool walk(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
          const Box& box, Visit&& visit) {
  for (std::size_t s = 0; s < lv.supers.size(); ++s) {
    if (!box_near(lo, hi, r, lv.supers[s], slack, box)) continue;
    for (std::size_t g = s * kBoxGroup; g < std::min(lv.groups.size(), (s + 1) * kBoxGroup); ++g) {
      if (!box_near(lo, hi, r, lv.groups[g], slack, box)) continue;
      for (std::size_t b = g * kBoxGroup; b < std::min(lv.boxes.size(), (g + 1) * kBoxGroup); ++b)
        if (box_near(lo, hi, r, lv.boxes[b], slack, box) && visit(b)) return true;
    }
  }
  return false;
}

}  // namespace

BoxLevels box_levels(std::vector<SearchBox> boxes) {
  BoxLevels lv;
  lv.boxes = std::move(boxes);
  lv.groups = box_unions(lv.boxes, kBoxGroup);
  lv.supers = box_unions(lv.groups, kBoxGroup);
  return lv;
}

SearchBox empty_search_box() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return SearchBox{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0};
}

RankBoxLevels box_levels_by_rank(const std::vector<SearchBox>& boxes,
                                 const std::vector<std::size_t>& offsets, std::size_t first,
                                 std::size_t end) {
  constexpr std::size_t kSuper = std::size_t(kBoxGroup) * kBoxGroup;
  std::vector<SearchBox> padded;
  std::vector<uint32_t> super_rank;
  for (std::size_t r = first; r < end; ++r) {
    const std::size_t n = offsets[r + 1] - offsets[r];
    if (n == 0) continue;
    padded.insert(padded.end(), boxes.begin() + std::ptrdiff_t(offsets[r]),
                  boxes.begin() + std::ptrdiff_t(offsets[r + 1]));
    const std::size_t supers = (n + kSuper - 1) / kSuper;
    padded.resize(padded.size() + supers * kSuper - n, empty_search_box());
    super_rank.insert(super_rank.end(), supers, uint32_t(r - first));
  }
  return {box_levels(std::move(padded)), std::move(super_rank)};
}

void boxes_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                const Box& box, std::vector<std::size_t>& out) {
  walk(lv, lo, hi, r, slack, box, [&](std::size_t b) {
    out.push_back(b);
    return false;
  });
}

bool any_box_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                  const Box& box) {
  return walk(lv, lo, hi, r, slack, box, [](std::size_t) { return true; });
}

}  // namespace mpsph
