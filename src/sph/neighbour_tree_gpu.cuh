// Device side of the GPU neighbour search (CUDA translation units only): the leaf tree, its walk,
// and the distance that decides neighbour membership. See sph_gpu.hpp for the method.
//
// Tree. Leaf k holds gas particles [32k, 32k + 32). Level 0 are the leaves; node m of level l
// covers leaves [m 2^l, (m + 1) 2^l) and exists when m < ceil(n_leaves / 2^l); the top level has
// one node. Nodes are bounding boxes of the wrapped positions (double) and the largest h below.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/warp_gpu.cuh"
#include "sph/sph_gpu.hpp"

namespace mpsph {
namespace gpu {

constexpr int kLeafSize = 32;  // = warp size: one lane per particle of a leaf
// Sub-boxes: each leaf's particles in groups of 8 (compact: 8 key-consecutive particles fill
// about one 2x2x2 cell), so that a staged leaf is scanned only over the groups some lane can reach.
// (Groups of 4 measured 11% slower on the Evrard 1e7 SPH pass: more box tests, little less
// scanning. docs/PERFORMANCE.md.)
constexpr int kSubSize = 8;
constexpr int kSubsPerLeaf = kLeafSize / kSubSize;
constexpr int kMaxTreeLevels = 40;
// Warps per block of the search kernels (h, density, force), one leaf per warp.
constexpr int kWarpsPerBlock = 4;
// Resident blocks per SM asked of the compiler for the pair passes (density, force): 6 caps them
// at 80 registers (small spills). Measured on the Evrard 1e7 passes (bench_sph_gpu, H200):
// density 104.2 / 92.7 / 85.4 ms and force 72.9 / 63.9 / 62.3 ms at 4 / 5 / 6 blocks (4 blocks:
// 125-128 registers).
constexpr int kPairMinBlocksPerSm = 6;
// Entries stored per leaf in GpuNeighbourMode::LeafLists (a leaf with more walks again).
constexpr int kLeafListCapacity = 192;

struct TreeNode {
  double lo[3], hi[3];
  float hmax;
  int pad;
};

struct TreeView {
  const TreeNode* nodes;
  const TreeNode* subs;  // kSubsPerLeaf per leaf (empty groups: lo = DBL_MAX, hi = -DBL_MAX);
                         // nullptr: scan whole leaves
  int n_leaves;
  int levels;  // level levels-1 is the root
  int offset[kMaxTreeLevels];
};

MPSPH_HD int level_count(int n_leaves, int level) {
  return int((int64_t(n_leaves) + (int64_t(1) << level) - 1) >> level);
}

// Box geometry for the kernels: sizes and reciprocals of a periodic box.
struct Geometry {
  double size[3], inv[3];
  bool periodic;
  __device__ explicit Geometry(const Box& box)
      : size{box.size.x, box.size.y, box.size.z},
        inv{box.periodic ? 1.0 / box.size.x : 0.0, box.periodic ? 1.0 / box.size.y : 0.0,
            box.periodic ? 1.0 / box.size.z : 0.0},
        periodic(box.periodic) {}
};

// Squared distance between two particles exactly as the CPU driver computes it
// (norm2(min_image(x_i - x_j, box)) in double, box.hpp): nvcc would otherwise fuse products and
// sums into FMAs and round differently, and a neighbour exactly on a lattice shell could change
// sides. The image number nearbyint(d / L) equals rint(d * (1/L)) unless d / L lies within
// rounding of a half-integer; only then is the division done.
__device__ __forceinline__ double exact_dist2(const Vec3d& a, const Vec3d& b, const Geometry& g) {
  double d[3] = {__dsub_rn(a.x, b.x), __dsub_rn(a.y, b.y), __dsub_rn(a.z, b.z)};
  if (g.periodic) {
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      const double q = d[k] * g.inv[k];
      double n = rint(q);
      if (fabs(fabs(q - n) - 0.5) < 1e-9) n = nearbyint(__ddiv_rn(d[k], g.size[k]));
      d[k] = __dsub_rn(d[k], __dmul_rn(g.size[k], n));
    }
  }
  return __dadd_rn(__dadd_rn(__dmul_rn(d[0], d[0]), __dmul_rn(d[1], d[1])), __dmul_rn(d[2], d[2]));
}

// The same distance with fused arithmetic (relative error ~1e-15): a superset filter when
// compared with a margin of 1e-9.
__device__ __forceinline__ double fast_dist2(const Vec3d& a, const Vec3d& b, const Geometry& g) {
  double d[3] = {a.x - b.x, a.y - b.y, a.z - b.z};
  if (g.periodic) {
#pragma unroll
    for (int k = 0; k < 3; ++k) d[k] -= g.size[k] * rint(d[k] * g.inv[k]);
  }
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}
constexpr double kFilterMargin = 1.0 + 1e-9;

// Position relative to a leaf centre in float (minimum image), with its largest component: the
// float pre-filter of the pair loops. For two such positions the float separation differs from
// the exact one by at most 2^-24 (|a| + |b| + |a - b|) per component, so
//   may_be_within(a, b, lim) = |a - b|_float^2 <= (1 + 1e-5) (lim + 4e-7 (a.m + b.m))^2
// never rejects a pair with exact distance < lim (valid while the difference of the two
// relative positions is the minimum image: float_filter_valid).
struct RelPos {
  float x, y, z, m;
};

__device__ __forceinline__ RelPos relative_position(const Vec3d& x, const double c[3],
                                                    const Geometry& g) {
  double d[3] = {x.x - c[0], x.y - c[1], x.z - c[2]};
  if (g.periodic) {
#pragma unroll
    for (int k = 0; k < 3; ++k) d[k] -= g.size[k] * rint(d[k] * g.inv[k]);
  }
  RelPos r{float(d[0]), float(d[1]), float(d[2]), 0.f};
  r.m = fmaxf(fabsf(r.x), fmaxf(fabsf(r.y), fabsf(r.z)));
  return r;
}

__device__ __forceinline__ bool may_be_within(const RelPos& a, float bx, float by, float bz,
                                              float bm, float lim) {
  const float dx = a.x - bx, dy = a.y - by, dz = a.z - bz;
  const float l = lim + 4e-7f * (a.m + bm);
  return dx * dx + dy * dy + dz * dz <= 1.00001f * l * l;
}

__device__ __forceinline__ void node_centre(const TreeNode& n, double c[3]) {
#pragma unroll
  for (int k = 0; k < 3; ++k) c[k] = 0.5 * (n.lo[k] + n.hi[k]);
}

// Absolute slack of box tests: a few ulps of the largest coordinate (box centres and half-widths
// are formed with rounding).
__device__ __forceinline__ double tree_tolerance(const TreeView& t, const Box& box) {
  const TreeNode& root = t.nodes[t.offset[t.levels - 1]];
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < 3; ++k) s = fmax(s, fmax(fabs(root.lo[k]), fabs(root.hi[k])));
  if (box.periodic) s = fmax(s, fmax(box.size.x, fmax(box.size.y, box.size.z)));
  return 64.0 * DBL_EPSILON * s;
}

// Squared periodic gap between two boxes (0 when they overlap), minus `tol` per axis. The minimum
// image of the centre offset gives the exact gap for boxes of any size, because max(0, |d| - e)
// grows with |d| (near |d| = L/2, where the reciprocal may pick the other image, both images give
// the same gap to rounding, which tol covers).
__device__ __forceinline__ double box_gap2(const TreeNode& a, const TreeNode& b, const Geometry& g,
                                           double tol) {
  double g2 = 0.0;
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    double dc = 0.5 * (a.lo[k] + a.hi[k]) - 0.5 * (b.lo[k] + b.hi[k]);
    if (g.periodic) dc -= g.size[k] * rint(dc * g.inv[k]);
    const double gap = fabs(dc) - 0.5 * (a.hi[k] - a.lo[k]) - 0.5 * (b.hi[k] - b.lo[k]) - tol;
    if (gap > 0.0) g2 += gap * gap;
  }
  return g2;
}

// Squared periodic gap between a point and a box.
__device__ __forceinline__ double point_gap2(const Vec3d& x, const TreeNode& b, const Geometry& g,
                                             double tol) {
  const double p[3] = {x.x, x.y, x.z};
  double g2 = 0.0;
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    double dc = p[k] - 0.5 * (b.lo[k] + b.hi[k]);
    if (g.periodic) dc -= g.size[k] * rint(dc * g.inv[k]);
    const double gap = fabs(dc) - 0.5 * (b.hi[k] - b.lo[k]) - tol;
    if (gap > 0.0) g2 += gap * gap;
  }
  return g2;
}

// In a periodic box the difference of two positions relative to q's centre is their minimum
// image when q's half-width plus the offset to n's far side stays below half the box per axis.
__device__ __forceinline__ bool float_filter_valid(const TreeNode& q, const TreeNode& n,
                                                   const Geometry& g) {
  if (!g.periodic) return true;
  bool ok = true;
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    double dc = 0.5 * (n.lo[k] + n.hi[k]) - 0.5 * (q.lo[k] + q.hi[k]);
    dc -= g.size[k] * rint(dc * g.inv[k]);
    const double reach = 0.5 * (q.hi[k] - q.lo[k]) + fabs(dc) + 0.5 * (n.hi[k] - n.lo[k]);
    ok = ok && reach < (0.5 - 1e-6) * g.size[k];
  }
  return ok;
}

// One leaf staged in shared memory by a warp: positions (double, for exact distances), float
// positions relative to the querying leaf's centre (for the pre-filter), and h.
struct LeafStage {
  Vec3d pos[kLeafSize];
  float rx[kLeafSize], ry[kLeafSize], rz[kLeafSize], rm[kLeafSize];
  float h[kLeafSize];
};

// Stages the groups of leaf m with their bit set in `groups` (every lane of the warp calls it);
// returns how many particles the leaf holds.
__device__ __forceinline__ int stage_leaf(const ParticleView& v, int m, const double cq[3],
                                          const Geometry& g, bool with_rel, bool with_h,
                                          unsigned groups, LeafStage& st) {
  const int lane = threadIdx.x & 31;
  const std::size_t base = std::size_t(m) * kLeafSize;
  __syncwarp();
  if (base + lane < v.n_gas && ((groups >> (lane / kSubSize)) & 1u)) {
    const Vec3d x = v.pos[base + lane];
    st.pos[lane] = x;
    if (with_rel) {
      const RelPos r = relative_position(x, cq, g);
      st.rx[lane] = r.x, st.ry[lane] = r.y, st.rz[lane] = r.z, st.rm[lane] = r.m;
    }
    if (with_h) st.h[lane] = v.h[base + lane];
  }
  __syncwarp();
  const std::size_t left = v.n_gas - base;
  return left < std::size_t(kLeafSize) ? int(left) : kLeafSize;
}

// Which groups of 8 of staged leaf m to scan: bit k of the result is set when some lane with
// `near` lies within `radius` (+ the group's h_max when add_h) of group k's box; bit k of *mine
// when this lane does. All 4 bits when the tree has no sub-boxes. Every lane of the warp calls it.
__device__ __forceinline__ unsigned needed_groups(const TreeView& t, int m, const Vec3d& xi,
                                                  bool near, double radius, bool add_h,
                                                  const Geometry& g, double tol, unsigned* mine) {
  constexpr unsigned kAll = (1u << kSubsPerLeaf) - 1u;
  if (!t.subs) {
    *mine = near ? kAll : 0u;
    return kAll;
  }
  unsigned need = 0, own = 0;
#pragma unroll
  for (int k = 0; k < kSubsPerLeaf; ++k) {
    const TreeNode& s = t.subs[std::size_t(m) * kSubsPerLeaf + k];
    const double r = (radius + (add_h ? double(s.hmax) : 0.0)) * kFilterMargin;
    const bool nk = near && point_gap2(xi, s, g, tol) < r * r;
    own |= unsigned(nk) << k;
    need |= unsigned(__any_sync(kFullMask, nk)) << k;
  }
  *mine = own;
  return need;
}

// Calls f(jj) for the staged particles jj < nj of the groups set in `mine`, in index order (no
// warp collectives inside: lanes may differ in `mine`).
template <class F>
__device__ __forceinline__ void for_each_in_groups(unsigned mine, int nj, F&& f) {
  for (unsigned gm = mine; gm; gm &= gm - 1) {
    const int k = __ffs(gm) - 1;
    const int j_end = min(nj, (k + 1) * kSubSize);
    for (int jj = k * kSubSize; jj < j_end; ++jj) f(jj);
  }
}

// Walks the tree for the query box q (warp-uniform arguments: every lane takes the same path) and
// calls visit(leaf, node) for every leaf whose box lies within radius (+ the node's h_max when
// add_node_h) of q. Stackless: an implicit complete binary tree needs no stack or skip pointers.
template <class Visit>
__device__ __forceinline__ void walk_tree(const TreeView& t, const TreeNode& q, double radius,
                                          bool add_node_h, const Geometry& g, double tol,
                                          Visit&& visit) {
  const int root = t.levels - 1;
  int l = root, m = 0;
  for (;;) {
    if (m < level_count(t.n_leaves, l)) {
      const TreeNode nd = t.nodes[t.offset[l] + m];
      const double r = (radius + (add_node_h ? double(nd.hmax) : 0.0)) * kFilterMargin;
      if (box_gap2(q, nd, g, tol) < r * r) {
        if (l > 0) {
          --l;
          m <<= 1;
          continue;
        }
        visit(m, nd);
      }
    }
    while ((m & 1) && l < root) {
      m >>= 1;
      ++l;
    }
    if (l == root) break;
    ++m;
  }
}

__device__ __forceinline__ double warp_max(double x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(kFullMask, x, o));
  return x;
}

__device__ __forceinline__ double warp_min(double x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x = fmin(x, __shfl_xor_sync(kFullMask, x, o));
  return x;
}

// Segments of a leaf. 32 particles that are consecutive in key order are compact except where
// the order jumps (between distant cells, mostly in sparse regions: a Morton order's jumps, or
// gaps between a Hilbert curve's particles, core/sfc_key.hpp); a leaf spanning a jump has a
// box far larger than its particles' search spheres, and one walk with that box would visit every
// leaf inside it (measured on an Evrard snapshot at t = 0.8, N = 1e5: up to 2856 leaves for one
// walk against 117 on average). So a walk is made per segment: a run of the leaf's lanes cut
// where two consecutive particles lie more than 2 max(lim_i, lim_{i-1}) apart (lim = the lane's
// search radius); that brought the largest walk to 272 leaves and the mean to 96.
struct Segment {
  TreeNode box;   // of the wrapped positions of its lanes; hmax = largest h
  double radius;  // largest lim of its lanes
  unsigned mask;  // its lanes
};

// Calls f(const Segment&) for every segment of the lanes with `want` (warp-uniform calls; every
// lane of the warp must call this). xw = the lane's wrapped position.
template <class F>
__device__ __forceinline__ void for_each_segment(const Vec3d& xw, bool want, double lim, float h,
                                                 F&& f) {
  const int lane = threadIdx.x & 31;
  const double px = __shfl_up_sync(kFullMask, xw.x, 1), py = __shfl_up_sync(kFullMask, xw.y, 1),
               pz = __shfl_up_sync(kFullMask, xw.z, 1);
  const double plim = __shfl_up_sync(kFullMask, lim, 1);
  const unsigned wanting = __ballot_sync(kFullMask, want);
  const bool prev_wants = lane > 0 && ((wanting >> (lane - 1)) & 1u);
  const double dx = xw.x - px, dy = xw.y - py, dz = xw.z - pz;
  const double cut_len = 2.0 * fmax(lim, plim);
  const bool cut = want && (!prev_wants || dx * dx + dy * dy + dz * dz > cut_len * cut_len);
  unsigned starts = __ballot_sync(kFullMask, cut);
  while (starts) {
    const int s = __ffs(starts) - 1;
    starts &= starts - 1;
    const int e = starts ? __ffs(starts) - 1 : 32;
    const unsigned span = (e >= 32 ? 0xffffffffu : ((1u << e) - 1u)) & ~((1u << s) - 1u);
    Segment seg;
    seg.mask = wanting & span;
    const bool in = (seg.mask >> lane) & 1u;
    seg.box.lo[0] = warp_min(in ? xw.x : DBL_MAX), seg.box.hi[0] = warp_max(in ? xw.x : -DBL_MAX);
    seg.box.lo[1] = warp_min(in ? xw.y : DBL_MAX), seg.box.hi[1] = warp_max(in ? xw.y : -DBL_MAX);
    seg.box.lo[2] = warp_min(in ? xw.z : DBL_MAX), seg.box.hi[2] = warp_max(in ? xw.z : -DBL_MAX);
    seg.box.hmax = float(warp_max(in ? double(h) : 0.0));
    seg.box.pad = 0;
    seg.radius = warp_max(in ? lim : 0.0);
    f(seg);
  }
}

// Where the candidate leaves of the pair passes come from and go to (GpuNeighbourMode). An entry
// is a leaf index and the mask of the lanes (one segment) it serves.
struct LeafLists {
  const int* list = nullptr;   // read: stored entries (nullptr: walk the tree)
  const int* count = nullptr;  // read: entries per leaf, -1 where the list overflowed
  int* record = nullptr;       // write while walking
  int* record_count = nullptr;
};

// Calls pair(j, h_j) for every gas j != i with r_ij < h_i + h_j (the CPU driver's pair set,
// decided with exact_dist2), for the lane's particle i of leaf `leaf` (active lanes only; every
// lane of the warp must call it, warp-uniform leaf). Each j is visited once: a lane belongs to
// one segment, and a segment's walk meets a leaf once.
template <class Pair>
__device__ __forceinline__ void for_each_pair(const ParticleView& v, const Box& box,
                                              const TreeView& t, const LeafLists& ll, int64_t leaf,
                                              bool active, std::size_t i, const Vec3d& xi,
                                              float h_i, LeafStage& st, Pair&& pair) {
  const Geometry g(box);
  const double tol = tree_tolerance(t, box);
  const int lane = threadIdx.x & 31;

  // The pair loop over leaf m for the lanes in `mask`, relative positions about cq.
  auto visit = [&](int m, const TreeNode& nd, unsigned mask, const TreeNode& q, const double* cq,
                   const RelPos& ri) {
    const double r_near = (double(h_i) + double(nd.hmax)) * kFilterMargin;
    const bool near =
        active && ((mask >> lane) & 1u) && point_gap2(xi, nd, g, tol) < r_near * r_near;
    if (!__any_sync(kFullMask, near)) return false;
    const bool use_float = float_filter_valid(q, nd, g);
    unsigned mine;
    const unsigned groups = needed_groups(t, m, xi, near, double(h_i), true, g, tol, &mine);
    const int nj = stage_leaf(v, m, cq, g, use_float, true, groups, st);
    if (!near) return true;
    for_each_in_groups(mine, nj, [&](int jj) {
      const float h_j = st.h[jj];
      if (use_float) {
        if (!may_be_within(ri, st.rx[jj], st.ry[jj], st.rz[jj], st.rm[jj], h_i + h_j)) return;
      }
      const std::size_t j = std::size_t(m) * kLeafSize + jj;
      const double h_sum = double(h_i) + double(h_j);
      const double r2_max = h_sum * h_sum;
      if (j == i) return;
      if (!use_float && fast_dist2(xi, st.pos[jj], g) > r2_max * kFilterMargin) return;
      if (!(exact_dist2(xi, st.pos[jj], g) < r2_max)) return;
      pair(j, h_j);
    });
    return true;
  };

  if (ll.list) {
    const int c = ll.count[leaf];
    if (c >= 0) {
      // Frame of the float filter: the box of the warp's active lanes (its particles may come
      // from any leaves: lane_task).
      const Vec3d xw = wrap_position(xi, box);
      TreeNode q;
      q.lo[0] = warp_min(active ? xw.x : DBL_MAX), q.hi[0] = warp_max(active ? xw.x : -DBL_MAX);
      q.lo[1] = warp_min(active ? xw.y : DBL_MAX), q.hi[1] = warp_max(active ? xw.y : -DBL_MAX);
      q.lo[2] = warp_min(active ? xw.z : DBL_MAX), q.hi[2] = warp_max(active ? xw.z : -DBL_MAX);
      q.hmax = 0.f;
      q.pad = 0;
      double cq[3];
      node_centre(q, cq);
      const RelPos ri = relative_position(xi, cq, g);
      const int* mine = ll.list + leaf * 2 * kLeafListCapacity;
      for (int k = 0; k < c; ++k) {
        const int m = mine[2 * k];
        visit(m, t.nodes[m], unsigned(mine[2 * k + 1]), q, cq, ri);
      }
      return;
    }
  }
  int n_record = 0;
  int* record = ll.record ? ll.record + leaf * 2 * kLeafListCapacity : nullptr;
  const Vec3d xw = wrap_position(xi, box);
  for_each_segment(xw, active, 2.0 * double(h_i), h_i, [&](const Segment& seg) {
    double cq[3];
    node_centre(seg.box, cq);
    const RelPos ri = relative_position(xi, cq, g);
    walk_tree(t, seg.box, double(seg.box.hmax), true, g, tol, [&](int m, const TreeNode& nd) {
      if (visit(m, nd, seg.mask, seg.box, cq, ri) && record) {
        if (lane == 0 && n_record < kLeafListCapacity) {
          record[2 * n_record] = m;
          record[2 * n_record + 1] = int(seg.mask);
        }
        ++n_record;
      }
    });
  });
  if (record && lane == 0) ll.record_count[leaf] = n_record <= kLeafListCapacity ? n_record : -1;
}

__device__ __forceinline__ int64_t global_warp() {
  return (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
}

// The work of the pair and h passes. Without an active set a warp takes one leaf (lane k: the
// leaf's k-th particle); with one (block substeps) it takes task_lanes() consecutive entries of
// the active list, so that warps are full of active particles however they are spread over the
// leaves (a leaf with a single active particle would cost a whole warp's walk; measured on the
// Evrard collapse, N = 1e5, H100: docs/PERFORMANCE.md). The list is in store order, which the
// order stage keeps close to key order, so a warp's particles stay close together; the
// segments of the walk (for_each_segment) cut where they are not.
//
// A small active set takes fewer particles per warp (ActiveSet::lanes, from gpu_task_lanes()):
// 32 per warp would leave most of the card idle while each warp walks the union of its
// particles' neighbourhoods segment by segment (Evrard 1e6, block steps, H100: a substep with
// 0.1-1% active spent ~2 ms in each pair pass, whatever the count).
struct LaneTask {
  std::size_t i;  // store index of the lane's particle (0 when the lane has none)
  std::size_t k;  // its slot in the active list (GpuPairLists), or i without an active set
  bool active;
};
__host__ __device__ inline int task_lanes(const ActiveSet& a) {
  return a.all() || a.lanes <= 0 ? kLeafSize : a.lanes;
}
__device__ __forceinline__ LaneTask lane_task(const ParticleView& v, const ActiveSet& a,
                                              int64_t warp) {
  if (a.all()) {
    const std::size_t k = std::size_t(warp) * kLeafSize + std::size_t(lane_id());
    return {k, k, k < v.n_gas};
  }
  const int lanes = task_lanes(a);
  const std::size_t k = std::size_t(warp) * std::size_t(lanes) + std::size_t(lane_id());
  return lane_id() < lanes && k < a.n_gas ? LaneTask{std::size_t(a.index[k]), k, true}
                                          : LaneTask{0, 0, false};
}
// Warps of the passes over the active gas of `a` (lane_task).
__host__ __device__ inline int64_t task_warps(std::size_t n_gas, const ActiveSet& a) {
  const std::size_t lanes = std::size_t(task_lanes(a));
  return int64_t((a.gas_count(n_gas) + lanes - 1) / lanes);
}

}  // namespace gpu

// Device buffers of the neighbour search, shared by the stage files (smoothing_length_gpu.cu,
// density_gpu.cu, force_gpu.cu) and built by neighbour_tree_gpu.cu.
struct GpuSph::Impl {
  GpuNeighbourMode mode = GpuNeighbourMode::LeafLists;  // measured faster (sph_gpu.hpp)
  gpu::TreeNode* nodes = nullptr;
  std::size_t node_capacity = 0;
  gpu::TreeNode* subs = nullptr;  // kSubsPerLeaf per leaf
  std::size_t sub_capacity = 0;
  bool use_subs = true;  // measured faster (docs/PERFORMANCE.md); set_sub_boxes() for comparisons
  int n_leaves = 0, levels = 0;
  int offset[gpu::kMaxTreeLevels] = {};
  uint32_t* flags = nullptr;
  // LeafLists: in the shared scratch (core/device_scratch.hpp), lent to this pass from density()
  // to forces(); valid while the scratch is in the generation that density() acquired.
  int* list_count = nullptr;  // candidates per leaf (-1: overflow, walk instead)
  int* list = nullptr;        // tasks x kLeafListCapacity entries (leaf index, lane mask)
  bool lists_valid = false;   // built by density() for the current tree
  uint64_t lists_generation = 0;
  std::size_t lists_tasks = 0;  // the tasks they were recorded for
  DeviceScratch own_scratch;    // when no shared one is lent (set_scratch)
  DeviceScratch* scratch = &own_scratch;
  // Pair lists of the active gas (GpuPairLists), recorded by density() for the active set of
  // `pairs_for` (its list address, tick and size identify it).
  uint32_t* pairs = nullptr;
  int32_t* pair_count = nullptr;
  std::size_t pairs_capacity = 0;  // particles
  ActiveSet pairs_for{};
  bool pairs_valid = false;
  bool record_pairs = true;  // record_pair_lists()

  Impl();
  ~Impl();
  // Leaf boxes from the wrapped gas positions (and h_max when with_h), then the upper levels.
  void build(const ParticleView& d, const Box& box, bool with_h);
  // LeafLists mode: buffers for the candidate leaves of every task of the pair passes (a leaf,
  // or a warp's share of the active list: lane_task), from the scratch.
  void reserve_lists(std::size_t tasks);
  // Pair-list buffers for n active gas particles.
  void reserve_pairs(std::size_t n);
  gpu::TreeView view() const;
  // The lists recorded by density() when valid for a pass of `tasks` tasks, else none (walk).
  gpu::LeafLists stored_lists(std::size_t tasks) const {
    gpu::LeafLists ll;
    if (lists_valid && scratch->generation() == lists_generation && tasks == lists_tasks)
      ll.list = list, ll.count = list_count;
    return ll;
  }
};

}  // namespace mpsph
