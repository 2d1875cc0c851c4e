// The GPU tree walks' longest groups over a run, for timing.txt: the wall time of the longest
// group's walk - one warp walks a group, so no walk is shorter - against the walk's time
// (gravity/tree_gravity_gpu.cu). The disk galaxy's centre, where |a_old| is small and the
// relative criterion opens much of the tree, holds such a group. CPU walks do not measure it
// (TreeWalkStats: 0).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

#include "gravity/gravity_kern.hpp"
#include "gravity/tree_gravity.hpp"

namespace mpsph {

struct LongestGroups {
  double last_s = 0.0;     // the last walk's longest group
  double largest_s = 0.0;  // the longest group of any walk
  double split = 0.0;      // targets of groups with too long lists, walked alone (last walk)
  void add(const TreeWalkStats& w) {
    last_s = w.longest_group_s;
    largest_s = std::max(largest_s, w.longest_group_s);
    split = double(w.split_targets);
  }
  // One line, or none when no walk measured it; `of` qualifies the numbers (e.g. ", largest over
  // the ranks").
  std::string note(const char* of = "") const {
    if (!(largest_s > 0.0)) return {};
    char line[400];
    std::snprintf(line, sizeof line,
                  "gravity walk%s: the longest group's walk (one warp's) %.3f ms in the last step, "
                  "%.3f ms in the longest; targets of groups with lists over %lld entries, walked "
                  "alone, in the last step: %.0f\n",
                  of, 1e3 * last_s, 1e3 * largest_s, kMaxGroupList, split);
    return line;
  }
};

}  // namespace mpsph
