// A list of halo boxes (sph/search_box.hpp) with two levels of groups over it, for selections
// that test many queries against many boxes: a query first meets the groups of groups, then the
// groups of those it may reach, then their boxes. Built on the host; the device-resident ranks
// upload the three arrays (sph/resident_sph_gpu.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/vec3.hpp"
#include "sph/search_box.hpp"

namespace mpsph {

struct BoxLevels {
  std::vector<SearchBox> boxes;
  std::vector<SearchBox> groups;  // group g: boxes [g kBoxGroup, (g + 1) kBoxGroup)
  std::vector<SearchBox> supers;  // super s: groups [s kBoxGroup, (s + 1) kBoxGroup)
};

BoxLevels box_levels(std::vector<SearchBox> boxes);

// Where the boxes of ranks [first, end) go in levels whose supers each hold one rank's boxes:
// rank r's boxes [offsets[r], offsets[r + 1]) from index at[r - first] on (a multiple of
// kBoxGroup^2), each rank's run padded with empty boxes (empty_search_box) to whole supers, a
// rank without boxes in none; n_boxes in all; super_rank[s] = r - first for the rank r of super
// s. A selection for up to 32 ranks at once then collects, for each query, the ranks whose boxes
// are near it as bits (sph/resident_sph_gpu.cu).
struct RankBoxLayout {
  std::vector<std::size_t> at;
  std::size_t n_boxes = 0;
  std::vector<uint32_t> super_rank;
};
RankBoxLayout rank_box_layout(const std::vector<std::size_t>& offsets, std::size_t first,
                              std::size_t end);

// Box k of the result: the union of boxes [k group, (k + 1) group) of `in`, with their largest
// radius (the levels' groups; halo_members' coarse groups of its candidates).
std::vector<SearchBox> box_unions(const std::vector<SearchBox>& in, std::size_t group);

// Appends to `out` the index of every box b with box_near(lo, hi, r, b, slack, box).
void boxes_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                const Box& box, std::vector<std::size_t>& out);
// Whether some box b has box_near(lo, hi, r, b, slack, box).
bool any_box_near(const BoxLevels& lv, const Vec3d& lo, const Vec3d& hi, double r, double slack,
                  const Box& box);

}  // namespace mpsph
