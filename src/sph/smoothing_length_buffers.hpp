// Buffers of the CPU smoothing-length stage (smoothing_length.cpp) that outlive one call: the
// stage's per-particle arrays and leaf boxes keep their capacity from step to step, so that a
// step neither allocates nor faults in fresh pages for them (at Evrard N = 1e5 the fresh pages of
// this stage and of the pair lists cost ~20% of a step on the development VM; docs/PERFORMANCE.md).
// Held by SphNeighbours; their contents mean nothing between calls.
#pragma once

#include <cstdint>
#include <vector>

#include "sph/gas_boxes.hpp"

namespace mpsph {

struct SmoothingLengthBuffers {
  GasBoxes boxes;                     // leaf boxes of the grouped previous-h search
  std::vector<double> d2_in, d2_out;  // d_N^2 and d_{N+1}^2 per gas particle
  std::vector<int32_t> inside;        // count inside 2h found by the grouped search (-1: none)
  std::vector<uint32_t> todo, act, rest, redo;  // particle lists of the rounds
  std::vector<uint8_t> done, recount;
};

}  // namespace mpsph
