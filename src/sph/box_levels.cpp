#include "sph/box_levels.hpp"

#include <algorithm>
#include <limits>

namespace mpsph {

namespace {

std::vector<SearchBox> unions(const std::vector<SearchBox>& in) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<SearchBox> out((in.size() + kBoxGroup - 1) / kBoxGroup,
                             SearchBox{{inf, inf, inf}, {-inf, -inf, -inf}, 0.0});
  for (std::size_t k = 0; k < in.size(); ++k) {
    SearchBox& u = out[k / kBoxGroup];
    const SearchBox& b = in[k];
    u.lo = {std::min(u.lo.x, b.lo.x), std::min(u.lo.y, b.lo.y), std::min(u.lo.z, b.lo.z)};
    u.hi = {std::max(u.hi.x, b.hi.x), std::max(u.hi.y, b.hi.y), std::max(u.hi.z, b.hi.z)};
    u.radius = std::max(u.radius, b.radius);
  }
  return out;
}

}  // namespace

BoxLevels box_levels(std::vector<SearchBox> boxes) {
  BoxLevels lv;
  lv.boxes = std::move(boxes);
  lv.groups = unions(lv.boxes);
  lv.supers = unions(lv.groups);
  return lv;
}

void boxes_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                const Box& box, std::vector<std::size_t>& out) {
  for (std::size_t s = 0; s < lv.supers.size(); ++s) {
    if (!box_near(lo, hi, r, lv.supers[s], slack, box)) continue;
    for (std::size_t g = s * kBoxGroup; g < std::min(lv.groups.size(), (s + 1) * kBoxGroup); ++g) {
      if (!box_near(lo, hi, r, lv.groups[g], slack, box)) continue;
      for (std::size_t b = g * kBoxGroup; b < std::min(lv.boxes.size(), (g + 1) * kBoxGroup); ++b)
        if (box_near(lo, hi, r, lv.boxes[b], slack, box)) out.push_back(b);
    }
  }
}

bool any_box_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                  const Box& box) {
  for (std::size_t s = 0; s < lv.supers.size(); ++s) {
    if (!box_near(lo, hi, r, lv.supers[s], slack, box)) continue;
    for (std::size_t g = s * kBoxGroup; g < std::min(lv.groups.size(), (s + 1) * kBoxGroup); ++g) {
      if (!box_near(lo, hi, r, lv.groups[g], slack, box)) continue;
      for (std::size_t b = g * kBoxGroup; b < std::min(lv.boxes.size(), (g + 1) * kBoxGroup); ++b)
        if (box_near(lo, hi, r, lv.boxes[b], slack, box)) return true;
    }
  }
  return false;
}

}  // namespace mpsph
