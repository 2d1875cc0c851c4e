// The gravity octree's node record and the per-node steps of its construction, as pure MPSPH_HD
// functions so that the CUDA build (one thread per node of a generation) runs the same code as the
// OpenMP build in octree.cpp.
//
// Layout (see octree.hpp for the build): a flat array of OctreeNode in breadth-first order. A node
// owns the contiguous range [begin, end) of Morton-sorted particles; its children are the
// contiguous node range [child_begin, child_begin + n_child) (n_child = 0: leaf). Nodes of one
// generation (depth) are contiguous, so the build and the upward pass proceed one generation at a
// time with every node of a generation independent. The tree is compressed: a node splits at the
// first Morton level where its particles' keys differ, so every internal node has 2..8 children.
#pragma once

#include <cstdint>

#include "core/annotation.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"
#include "gravity/morton_levels.hpp"

namespace mpsph {

struct OctreeNode {
  Vec3d com;           // centre of mass
  Vec3d box_centre;    // tight bounding box of the node's particles: centre ...
  Vec3f box_half;      // ... and half-extent (rounded up to float)
  float size;          // longest edge of the bounding box: l of the opening criteria
  Multipole mp;        // mass and quadrupole about com
  float eps_max;       // largest softening among the node's particles
  float eps2_mean;     // mass-weighted mean of eps^2 (Plummer pair softening with the node)
  int32_t begin, end;  // particles [begin, end) in tree (Morton) order
  int32_t child_begin, n_child;  // children [child_begin, child_begin + n_child); 0 = leaf
};

// What the opening criteria read of node n, relative to a target group's centre (the walks of
// the CPU and the GPU, and the LET selection across ranks, which takes a rank's target box).
MPSPH_HD NodeView node_view(const OctreeNode& n, const Vec3d& centre) {
  NodeView nv;
  nv.com = vec_cast<float>(n.com - centre);
  nv.box_centre = vec_cast<float>(n.box_centre - centre);
  nv.box_half = n.box_half;
  nv.size = n.size;
  nv.mass = n.mp.mass;
  nv.eps_max = n.eps_max;
  return nv;
}

// The particles in tree order, as the build and the walk read them.
struct TreeParticles {
  const Vec3d* pos;
  const double* mass;
  const float* eps;
  int32_t n;
};

// Octant boundaries of the sorted keys [begin, end) at Morton `level`: particles in octant k are
// [bounds[k], bounds[k+1]). Binary search per octant (keys share all levels above `level`).
MPSPH_HD void octant_bounds(const uint64_t* keys, int32_t begin, int32_t end, int level,
                            int32_t bounds[9]) {
  bounds[0] = begin;
  bounds[8] = end;
  for (int oct = 1; oct < 8; ++oct) {
    int32_t lo = bounds[oct - 1], hi = end;  // first index whose octant is >= oct
    while (lo < hi) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (morton_octant(keys[mid], level) < oct) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    bounds[oct] = lo;
  }
}

// Morton level at which the node [begin, end) splits, or -1 when it stays a leaf (few enough
// particles, or all keys identical so no level separates them).
MPSPH_HD int node_split_level(const uint64_t* keys, int32_t begin, int32_t end, int leaf_size) {
  if (end - begin <= leaf_size) return -1;
  const int level = morton_common_levels(keys[begin], keys[end - 1]);
  return level >= kMortonLevels ? -1 : level;
}

// Number of non-empty octants of a node that splits at `level`.
MPSPH_HD int count_children(const int32_t bounds[9]) {
  int c = 0;
  for (int k = 0; k < 8; ++k) c += bounds[k + 1] > bounds[k] ? 1 : 0;
  return c;
}

// Rounds a non-negative half-extent up so that the float box still contains every particle.
MPSPH_HD float round_up_half(double h) {
  return float(h * (1.0 + 1e-6)) + 1e-30f;
}

// Sets the box, size and second-moment-derived fields from double accumulators.
MPSPH_HD void finish_node(OctreeNode& node, const Vec3d& lo, const Vec3d& hi, double mass,
                          const double s[6], double eps_max, double eps2_sum) {
  node.box_centre = 0.5 * (lo + hi);
  node.box_half = {round_up_half(0.5 * (hi.x - lo.x)), round_up_half(0.5 * (hi.y - lo.y)),
                   round_up_half(0.5 * (hi.z - lo.z))};
  node.size = 2.0f * std::fmax(node.box_half.x, std::fmax(node.box_half.y, node.box_half.z));
  const double tr = s[0] + s[3] + s[5];
  node.mp.mass = float(mass);
  node.mp.qxx = float(3.0 * s[0] - tr);
  node.mp.qxy = float(3.0 * s[1]);
  node.mp.qxz = float(3.0 * s[2]);
  node.mp.qyy = float(3.0 * s[3] - tr);
  node.mp.qyz = float(3.0 * s[4]);
  node.mp.qzz = float(3.0 * s[5] - tr);
  node.mp.trace = float(tr);
  node.eps_max = float(eps_max);
  node.eps2_mean = mass > 0.0 ? float(eps2_sum / mass) : 0.0f;
}

// Moments of a leaf from its particles (two passes: centre of mass, then second moments about it).
MPSPH_HD void leaf_moments(OctreeNode& node, const TreeParticles& p) {
  double m = 0.0, eps_max = 0.0, eps2_sum = 0.0;
  Vec3d mx{0, 0, 0};
  Vec3d lo = p.pos[node.begin], hi = p.pos[node.begin];
  for (int32_t j = node.begin; j < node.end; ++j) {
    const Vec3d x = p.pos[j];
    m += p.mass[j];
    mx += p.mass[j] * x;
    lo = {std::fmin(lo.x, x.x), std::fmin(lo.y, x.y), std::fmin(lo.z, x.z)};
    hi = {std::fmax(hi.x, x.x), std::fmax(hi.y, x.y), std::fmax(hi.z, x.z)};
    const double e = p.eps[j];
    eps_max = std::fmax(eps_max, e);
    eps2_sum += p.mass[j] * e * e;
  }
  node.com = m > 0.0 ? (1.0 / m) * mx : 0.5 * (lo + hi);
  double s[6] = {0, 0, 0, 0, 0, 0};  // second moments sum m d_a d_b: xx xy xz yy yz zz
  for (int32_t j = node.begin; j < node.end; ++j) {
    const Vec3d d = p.pos[j] - node.com;
    const double mj = p.mass[j];
    s[0] += mj * d.x * d.x, s[1] += mj * d.x * d.y, s[2] += mj * d.x * d.z;
    s[3] += mj * d.y * d.y, s[4] += mj * d.y * d.z, s[5] += mj * d.z * d.z;
  }
  finish_node(node, lo, hi, m, s, eps_max, eps2_sum);
}

// Moments of an internal node from its children (parallel-axis theorem for the second moments).
MPSPH_HD void internal_moments(OctreeNode& node, const OctreeNode* nodes) {
  double m = 0.0, eps_max = 0.0, eps2_sum = 0.0;
  Vec3d mx{0, 0, 0};
  const OctreeNode& first = nodes[node.child_begin];
  Vec3d lo = first.box_centre - vec_cast<double>(first.box_half);
  Vec3d hi = first.box_centre + vec_cast<double>(first.box_half);
  for (int32_t c = node.child_begin; c < node.child_begin + node.n_child; ++c) {
    const OctreeNode& ch = nodes[c];
    const double mc = ch.mp.mass;
    m += mc;
    mx += mc * ch.com;
    const Vec3d clo = ch.box_centre - vec_cast<double>(ch.box_half);
    const Vec3d chi = ch.box_centre + vec_cast<double>(ch.box_half);
    lo = {std::fmin(lo.x, clo.x), std::fmin(lo.y, clo.y), std::fmin(lo.z, clo.z)};
    hi = {std::fmax(hi.x, chi.x), std::fmax(hi.y, chi.y), std::fmax(hi.z, chi.z)};
    eps_max = std::fmax(eps_max, double(ch.eps_max));
    eps2_sum += mc * double(ch.eps2_mean);
  }
  node.com = m > 0.0 ? (1.0 / m) * mx : 0.5 * (lo + hi);
  double s[6] = {0, 0, 0, 0, 0, 0};
  for (int32_t c = node.child_begin; c < node.child_begin + node.n_child; ++c) {
    const OctreeNode& ch = nodes[c];
    // Child second moment S = (Q + trace I)/3, shifted to the parent's centre of mass.
    const double t3 = double(ch.mp.trace) / 3.0;
    const double mc = ch.mp.mass;
    const Vec3d e = ch.com - node.com;
    s[0] += double(ch.mp.qxx) / 3.0 + t3 + mc * e.x * e.x;
    s[1] += double(ch.mp.qxy) / 3.0 + mc * e.x * e.y;
    s[2] += double(ch.mp.qxz) / 3.0 + mc * e.x * e.z;
    s[3] += double(ch.mp.qyy) / 3.0 + t3 + mc * e.y * e.y;
    s[4] += double(ch.mp.qyz) / 3.0 + mc * e.y * e.z;
    s[5] += double(ch.mp.qzz) / 3.0 + t3 + mc * e.z * e.z;
  }
  finish_node(node, lo, hi, m, s, eps_max, eps2_sum);
}

}  // namespace mpsph
