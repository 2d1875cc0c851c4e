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

// A box near nothing (its gap to any box is infinite): what pads a rank's run of boxes.
SearchBox empty_search_box();

// The boxes of ranks [first, end) - rank r's are boxes[offsets[r], offsets[r + 1]) - as levels
// in which every super holds one rank's boxes (each rank's run padded with empty boxes to whole
// supers of kBoxGroup^2 boxes; a rank without boxes has no super), and super_rank[s] = r - first
// for the rank r of super s: a selection for up to 32 ranks at once collects, for each query,
// the ranks whose boxes are near it as bits (sph/resident_sph_gpu.cu).
struct RankBoxLevels {
  BoxLevels levels;
  std::vector<uint32_t> super_rank;
};
RankBoxLevels box_levels_by_rank(const std::vector<SearchBox>& boxes,
                                 const std::vector<std::size_t>& offsets, std::size_t first,
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
