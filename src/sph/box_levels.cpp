#include "sph/box_levels.hpp"

#include <algorithm>
#include <limits>

namespace mpsph {

std::vector<SearchBox> box_unions(const std::vector<SearchBox>& in, std::size_t group) {
  std::vector<SearchBox> out((in.size() + group - 1) / group, empty_search_box());
  for (std::size_t k = 0; k < in.size(); ++k) unite(out[k / group], in[k]);
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

RankBoxLayout rank_box_layout(const std::vector<std::size_t>& offsets, std::size_t first,
                              std::size_t end) {
  constexpr std::size_t kSuper = std::size_t(kBoxGroup) * kBoxGroup;
  RankBoxLayout l;
  for (std::size_t r = first; r < end; ++r) {
    const std::size_t supers = (offsets[r + 1] - offsets[r] + kSuper - 1) / kSuper;
    l.at.push_back(l.n_boxes);
    l.n_boxes += supers * kSuper;
    l.super_rank.insert(l.super_rank.end(), supers, uint32_t(r - first));
  }
  return l;
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
