// The space-filling-curve key of the particles' order: the order stage sorts by it (CPU
// core/particle_order.hpp, GPU core/particle_order_gpu.hpp) and the MPI domain decomposition cuts
// it into one key range per rank (parallel/domain_decomposition.hpp, run/rank_owners.hpp). It is
// the 3D Hilbert key of core/hilbert.hpp: consecutive particles stay close in space along the
// whole curve, where a Morton key's order jumps between distant cells inside a run of particles
// (docs/PERFORMANCE.md, "The order of the SPH passes' leaves"). Both keys are hierarchical (every
// octree cell is one key range), so the decomposition's ranges stay unions of tree cells. The
// octrees of gravity keep Morton keys of their own (gravity/octree.hpp).
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/hilbert.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// Key of position x in the cube [lo, lo + edge)^3 (outside positions clamped to the nearest cell).
MPSPH_HD uint64_t sfc_key(const Vec3d& x, const Vec3d& lo, double edge) {
  return hilbert_key(x, lo, edge);
}

}  // namespace mpsph
