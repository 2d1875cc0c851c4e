// Which particles lie within a radius of any of a set of points: the members of a physics module's
// stage across ranks (core/module_ranks.hpp) and the gas around sink candidates
// (sinks/sinks.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// The particles of p in [begin, end) of type `type` within `radius` of any of `points` (nearest
// image in a periodic box), ascending. A grid of cells at least `radius` wide over the points:
// O((end - begin) + points) for points spread over many cells.
std::vector<uint32_t> particles_near(const ParticleView& p, std::size_t begin, std::size_t end,
                                     uint8_t type, const std::vector<Vec3d>& points, double radius,
                                     const Box& box);
// The same with a radius per point: the points are sorted into classes of radii within a factor 2
// and each class searched on its own grid.
std::vector<uint32_t> particles_near(const ParticleView& p, std::size_t begin, std::size_t end,
                                     uint8_t type, const std::vector<Vec3d>& points,
                                     const std::vector<double>& radius, const Box& box);

// Every pair (particle i of `type` in [begin, end), point q) with |x_i - points[q]| <= radius
// (nearest image), ascending.
std::vector<std::pair<uint32_t, uint32_t>> pairs_near(const ParticleView& p, std::size_t begin,
                                                      std::size_t end, uint8_t type,
                                                      const std::vector<Vec3d>& points,
                                                      double radius, const Box& box);

}  // namespace mpsph
