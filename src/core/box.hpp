// Simulation domain: open (vacuum boundaries) or a periodic box. Distances between particles always
// go through min_image() so that every pair function is periodic-ready.
#pragma once

#include "core/annotation.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct Box {
  bool periodic = false;
  Vec3d lo{0, 0, 0};    // lower corner (periodic only)
  Vec3d size{0, 0, 0};  // edge lengths (periodic only)
};

// Nearest periodic image of a separation dx (x_i - x_j); identity for an open box.
MPSPH_HD Vec3d min_image(Vec3d dx, const Box& box) {
  if (box.periodic) {
    dx.x -= box.size.x * std::nearbyint(dx.x / box.size.x);
    dx.y -= box.size.y * std::nearbyint(dx.y / box.size.y);
    dx.z -= box.size.z * std::nearbyint(dx.z / box.size.z);
  }
  return dx;
}

// Maps a position back into [lo, lo+size) for a periodic box.
MPSPH_HD Vec3d wrap_position(Vec3d x, const Box& box) {
  if (box.periodic) {
    x.x -= box.size.x * std::floor((x.x - box.lo.x) / box.size.x);
    x.y -= box.size.y * std::floor((x.y - box.lo.y) / box.size.y);
    x.z -= box.size.z * std::floor((x.z - box.lo.z) / box.size.z);
  }
  return x;
}

}  // namespace mpsph
