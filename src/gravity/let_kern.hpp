// The locally essential trees of tree gravity across MPI ranks (parallel/distributed_gravity.hpp):
// a rank's target boxes, the particles of opened leaves as sent, and the test that decides which
// nodes of its tree a rank sends for a box - shared by the host selection and the device-resident
// GPU ranks' (gravity/let_gpu.hpp), so both send the same nodes.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"
#include "gravity/octree_kern.hpp"

namespace mpsph {

// A box of target groups of one rank: the bounding box of its particles, their largest softening,
// and their smallest previous |a| (see distributed_gravity.hpp).
struct LetBox {
  Vec3d lo, hi;
  float eps_max;
  float acc_min;     // smallest non-zero float(|a_old| / G) of its particles; 0: none
  uint8_t has_zero;  // some particle has no previous |a| (its group uses the geometric criterion)
};

// A particle of an opened leaf, as sent.
struct LetParticle {
  Vec3d pos;
  double mass;
  float eps;
};

// A LET as it travels GPU to GPU between device-resident ranks (parallel/distributed_gravity.cpp):
// one message of `nodes` OctreeNodes (the layout of a LET as appended) followed by `particles`
// LetParticles.
struct LetCounts {
  uint64_t nodes = 0, particles = 0;
};
static_assert(sizeof(OctreeNode) % alignof(LetParticle) == 0, "the particles follow the nodes");
inline std::size_t let_message_bytes(const LetCounts& c) {
  return std::size_t(c.nodes) * sizeof(OctreeNode) + std::size_t(c.particles) * sizeof(LetParticle);
}

// Relative slack of the sender's test: the group-centred float coordinates of one process differ
// from the box-centred ones by ~1e-7 of the distance; 1e-5 makes the box test strictly the
// more conservative one.
constexpr float kLetSlack = 1e-5f;

// True when node n is accepted for every target group that lies inside box b (see
// distributed_gravity.hpp).
MPSPH_HD bool let_node_accepted(const LetBox& b, const OctreeNode& n, const OpeningParams& op,
                                bool relative) {
  const Vec3d centre = 0.5 * (b.lo + b.hi);
  const NodeView nv = node_view(n, centre);
  auto inf_norm = [](const Vec3f& v) {
    return std::fmax(std::fabs(v.x), std::fmax(std::fabs(v.y), std::fabs(v.z)));
  };
  const float grow = kLetSlack * (inf_norm(nv.com) + inf_norm(nv.box_centre) + n.size);
  TargetGroup tg;
  tg.half = {round_up_half(0.5 * (b.hi.x - b.lo.x)) * (1.0f + kLetSlack) + grow,
             round_up_half(0.5 * (b.hi.y - b.lo.y)) * (1.0f + kLetSlack) + grow,
             round_up_half(0.5 * (b.hi.z - b.lo.z)) * (1.0f + kLetSlack) + grow};
  tg.eps_max = b.eps_max;
  OpeningParams strict = op;
  strict.theta *= 1.0f - kLetSlack;
  strict.rel_tol *= 1.0f - kLetSlack;
  strict.theta_max *= 1.0f - kLetSlack;
  // Groups with a previous |a| everywhere use the relative criterion with their own (larger or
  // equal) minimum; groups holding a zero, or every group before the first evaluation, the
  // geometric one.
  if (relative && b.acc_min > 0.0f) {
    tg.acc_min = b.acc_min;
    if (!node_accepted(tg, nv, strict)) return false;
  }
  if (!relative || b.has_zero) {
    tg.acc_min = 0.0f;
    if (!node_accepted(tg, nv, strict)) return false;
  }
  return true;
}

}  // namespace mpsph
