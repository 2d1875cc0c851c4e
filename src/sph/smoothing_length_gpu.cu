// Smoothing lengths on the GPU: the exact N_B rule of smoothing_length.hpp (same
// smoothing_length_between, same distances) with the leaf tree of neighbour_tree_gpu.cuh.
//
// Per particle i (one lane), from a trial radius R_i (2.3 h_i of the last step, or an estimate
// from its leaf's box on the first step), each pass of the warp over the tree counts the
// neighbours inside 8 radii and keeps every squared distance inside the largest:
//   - when N_B + 1 <= count <= kGatherCap there, the buffer holds the N_B-th and (N_B+1)-th
//     smallest squared distances (quickselect) - the d_N^2, d_{N+1}^2 of the CPU driver, so
//     h_i = smoothing_length_between(d_N^2, d_{N+1}^2) is identical (usually after one pass);
//   - else the radii bracket d_{N+1} (grown or shrunk while one side is unknown, then spread
//     geometrically inside the bracket, which shrinks ninefold in log radius per pass), and a
//     radius with such a count is gathered by one more pass.
// nngb is N_B unless ties or the h_min floor put more inside 2h (counted from the buffer, or by
// one more pass when 2h reaches beyond it).
#include <cuda_runtime.h>

#include <cfloat>
#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "sph/neighbour_tree_gpu.cuh"
#include "sph/smoothing_length_kern.hpp"

namespace mpsph {

using gpu::kFullMask;
using gpu::kLeafSize;
using gpu::TreeNode;
using gpu::TreeView;

namespace {

constexpr int kThresholds = 8;
constexpr int kGatherCap = kGpuSphGatherCapacity;
using gpu::kWarpsPerBlock;
constexpr int kMaxIterations = 64;

// a[k] becomes the k-th smallest (0-based) of a[0, n), with a[0, k) <= a[k] (Hoare partition,
// median of three).
__device__ void select_nth(double* a, int n, int k) {
  int lo = 0, hi = n - 1;
  while (hi > lo) {
    const int mid = lo + (hi - lo) / 2;
    if (a[mid] < a[lo]) {
      const double t = a[mid];
      a[mid] = a[lo], a[lo] = t;
    }
    if (a[hi] < a[lo]) {
      const double t = a[hi];
      a[hi] = a[lo], a[lo] = t;
    }
    if (a[hi] < a[mid]) {
      const double t = a[hi];
      a[hi] = a[mid], a[mid] = t;
    }
    const double pivot = a[mid];
    int i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) ++i;
      while (a[j] > pivot) --j;
      if (i <= j) {
        const double t = a[i];
        a[i] = a[j], a[j] = t;
        ++i, --j;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      break;
  }
}

// Calls f(r2) with the exact squared distance of every gas j (i included) that may lie within
// `lim` of the lane's particle (a superset: callers test r2 themselves), for the lanes with
// `want`, walking the tree once per segment of the leaf (neighbour_tree_gpu.cuh). Every lane of
// the warp calls it.
template <class F>
__device__ __forceinline__ void for_each_candidate(const ParticleView& v, const TreeView& t,
                                                   const gpu::Geometry& g, double tol,
                                                   const Vec3d& xi, const Vec3d& xw, bool want,
                                                   double lim, gpu::LeafStage& st, F&& f) {
  const double lim2 = lim * lim * gpu::kFilterMargin;
  const float lim_f = float(lim);
  const int lane = gpu::lane_id();
  gpu::for_each_segment(xw, want, lim, 0.f, [&](const gpu::Segment& seg) {
    const bool mine = (seg.mask >> lane) & 1u;
    double cq[3];
    gpu::node_centre(seg.box, cq);
    const gpu::RelPos ri = gpu::relative_position(xi, cq, g);
    gpu::walk_tree(t, seg.box, seg.radius, false, g, tol, [&](int m, const TreeNode& nd) {
      const bool near = mine && gpu::point_gap2(xi, nd, g, tol) < lim2;
      if (!__any_sync(kFullMask, near)) return;
      const bool use_float = gpu::float_filter_valid(seg.box, nd, g);
      unsigned own;
      const unsigned groups = gpu::needed_groups(t, m, xi, near, lim, false, g, tol, &own);
      const int nj = gpu::stage_leaf(v, m, cq, g, use_float, false, groups, st);
      if (!near) return;
      gpu::for_each_in_groups(own, nj, [&](int jj) {
        if (use_float) {
          if (!gpu::may_be_within(ri, st.rx[jj], st.ry[jj], st.rz[jj], st.rm[jj], lim_f)) return;
        } else if (gpu::fast_dist2(xi, st.pos[jj], g) > lim2) {
          return;
        }
        f(gpu::exact_dist2(xi, st.pos[jj], g));
      });
    });
  });
}

// Resident blocks per SM asked of the compiler: 5 caps the kernel at 96 registers (some spills).
// Measured on the Evrard 1e7 h pass (bench_sph_gpu, H200): 98.2 ms at 4 blocks (128 registers),
// 93.1 ms at 5; without a minimum nvcc takes 151 registers (3 blocks) and the pass is slower still.
constexpr int kMinBlocksPerSm = 5;

__global__ void __launch_bounds__(kWarpsPerBlock * 32, kMinBlocksPerSm)
    smoothing_length_kernel(ParticleView v, Box box, TreeView t, int n_b, float h_min,
                            uint32_t* flags, ActiveSet a, double* next_distance) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();  // the warp's task: a leaf or 32 active particles
  if (leaf >= gpu::task_warps(v.n_gas, a)) return;
  gpu::LeafStage& st = stage[threadIdx.x >> 5];
  const gpu::LaneTask task = gpu::lane_task(v, a, leaf);
  const std::size_t i = task.i;
  const bool active = task.active;
  const gpu::Geometry g(box);
  const double tol = gpu::tree_tolerance(t, box);
  const int k_nn = n_b + 1;  // d_{N+1} is needed too
  const double half_edge =
      box.periodic ? 0.5 * fmin(box.size.x, fmin(box.size.y, box.size.z)) : DBL_MAX;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  const Vec3d xw = wrap_position(xi, box);

  // Trial radius: 2.3 h of the last step (h changes by a few per cent per step), else from the
  // leaf's box.
  double R = 0.0;
  {
    const float h_old = active ? v.h[i] : 0.f;
    if (h_old > 0.f && isfinite(h_old)) {
      R = 2.3 * double(h_old);
    } else if (a.all()) {  // the warp is leaf `leaf` (a first step has no active set)
      const TreeNode q = t.nodes[leaf];
      const std::size_t left = v.n_gas - std::size_t(leaf) * kLeafSize;
      const double in_leaf = double(left < std::size_t(kLeafSize) ? left : kLeafSize);
      const double e = fmax(q.hi[0] - q.lo[0], fmax(q.hi[1] - q.lo[1], q.hi[2] - q.lo[2]));
      R = e * cbrt(double(k_nn + 1) / in_leaf);
    }
    if (!(R > 0.0)) {
      const TreeNode& root = t.nodes[t.offset[t.levels - 1]];
      const double e =
          fmax(root.hi[0] - root.lo[0], fmax(root.hi[1] - root.lo[1], root.hi[2] - root.lo[2]));
      R = e * cbrt(double(k_nn) / double(v.n_gas));
      if (!(R > 0.0)) R = 1.0;
    }
    R = fmin(R, half_edge);
  }

  // Search: each pass counts inside 8 radii r_0 > ... > r_7 and keeps the squared distances
  // inside r_0 (up to kGatherCap). Done when N_B+1 <= count(r_0) <= kGatherCap (the buffer is
  // complete), or when a smaller radius has such a count (then one gather pass follows).
  // Otherwise the bracket lo < d_{N+1} <= hi (count(lo) < N_B+1 <= count(hi)) narrows: radii
  // spread between lo and hi, or grown/shrunk while one side is unknown.
  constexpr double kStep[kThresholds] = {
      1.0, 0.85, 0.7225, 0.614125, 0.52200625, 0.4437053125, 0.377149515625, 0.32057708828125};
  double buf[kGatherCap];
  int n_buf = 0;
  double lo = 0.0, hi = DBL_MAX;
  int hi_count = 0;
  bool done = !active, selected = false, buffered = false, beyond = false;
  double T = 0.0;  // squared radius: buf holds every r^2 < T
  for (int iter = 0; iter < kMaxIterations; ++iter) {
    if (__all_sync(kFullMask, done)) break;
    double r[kThresholds], R2[kThresholds];
    const bool bracket = hi < DBL_MAX && lo > 0.0;
    const double ratio = bracket ? hi / lo : 1.0;
#pragma unroll
    for (int k = 0; k < kThresholds; ++k) {
      r[k] = done      ? 0.0
             : bracket ? lo * pow(ratio, double(kThresholds - k) / (kThresholds + 1))
                       : R * kStep[k];
      R2[k] = r[k] * r[k];
    }
    int c[kThresholds];
#pragma unroll
    for (int k = 0; k < kThresholds; ++k) c[k] = 0;
    if (!done) n_buf = 0;  // a finished lane keeps its buffer
    for_each_candidate(v, t, g, tol, xi, xw, !done, r[0], st, [&](double r2) {
#pragma unroll
      for (int k = 0; k < kThresholds; ++k) c[k] += r2 < R2[k];
      if (r2 < R2[0] && n_buf < kGatherCap) buf[n_buf++] = r2;
    });
    if (done) continue;
    if (c[0] >= k_nn && c[0] <= kGatherCap) {
      T = R2[0];
      done = selected = buffered = true;
      continue;
    }
#pragma unroll
    for (int k = 0; k < kThresholds; ++k) {
      if (c[k] < k_nn) {
        lo = fmax(lo, r[k]);
      } else if (r[k] < hi) {
        hi = r[k];
        hi_count = c[k];
      }
    }
    if (hi < DBL_MAX && hi_count <= kGatherCap) {
      T = hi * hi;
      done = selected = true;
    } else if (hi == DBL_MAX) {
      if (r[0] >= half_edge) {
        atomicOr(flags, kGpuSphNeighboursBeyondHalfBox);
        done = beyond = true;
      } else {
        const double grow = c[0] > 1 ? cbrt(1.5 * double(k_nn) / double(c[0])) : 8.0;
        R = fmin(r[0] * fmin(fmax(grow, 1.25), 8.0), half_edge);
      }
    } else if (lo == 0.0) {
      R = hi * cbrt(0.5 * double(kGatherCap) / double(hi_count));
    } else if (!(hi > lo * (1.0 + 1e-12))) {
      done = true;  // more than kGatherCap - N_B particles at one distance: reported below
    }
  }
  if (active && !selected && !beyond) atomicOr(flags, kGpuSphNotConverged);

  // Gather for the lanes whose radius was not the pass's largest.
  const bool gather = selected && !buffered;
  if (__any_sync(kFullMask, gather)) {
    if (gather) n_buf = 0;
    for_each_candidate(v, t, g, tol, xi, xw, gather, sqrt(T), st, [&](double r2) {
      if (r2 < T && n_buf < kGatherCap) buf[n_buf++] = r2;
    });
  }

  float h = 0.f;
  bool outer = false;
  int nngb = n_b;
  if (selected) {
    select_nth(buf, n_buf, n_b);
    const double d2_out = buf[n_b];
    double d2_in = 0.0;
    for (int m = 0; m < n_b; ++m) d2_in = fmax(d2_in, buf[m]);
    h = fmaxf(smoothing_length_between(d2_in, d2_out), h_min);
    if (box.periodic && !(2.0 * double(h) * (1.0 + 1e-6) < half_edge))
      atomicOr(flags, kGpuSphSearchBeyondHalfBox);
    // 2h <= d_{N+1} with d_N < 2h: exactly N_B inside; otherwise (ties, floor) count them.
    const double s = support2(h);
    if (s > d2_out) {
      if (s <= T) {
        nngb = 0;
        for (int m = 0; m < n_buf; ++m) nngb += buf[m] < s;
      } else {
        outer = true;
      }
    }
  }
  if (__any_sync(kFullMask, outer)) {
    const double s = support2(h);
    int count = 0;
    for_each_candidate(v, t, g, tol, xi, xw, outer, 2.0 * double(h), st,
                       [&](double r2) { count += r2 < s; });
    if (outer) nngb = count;
  }
  if (active && selected) {
    v.h[i] = h;
    v.nngb[i] = nngb;
    if (next_distance) next_distance[i] = sqrt(buf[n_b]);
  }
}

}  // namespace

void GpuSph::smoothing_lengths(const ParticleView& d, const Box& box, const SphParams& p,
                               const ActiveSet& a, double* next_distance) {
  const std::size_t n = d.n_gas;
  if (n == 0) return;
  const int n_b = p.n_neighbours;
  if (!p.enough_gas(n))
    throw Error("sph.n_neighbours = " + std::to_string(n_b) + " needs at least " +
                std::to_string(n_b + 1) + " gas particles; there are " + std::to_string(n));
  if (n_b + 1 > kGatherCap)
    throw Error("sph.n_neighbours = " + std::to_string(n_b) +
                " exceeds what the GPU smoothing-length search holds per particle (" +
                std::to_string(kGatherCap - 1) + ")");
  if (a.gas_count(n) == 0) return;
  impl_->build(d, box, false);
  const unsigned threads = kWarpsPerBlock * 32;
  smoothing_length_kernel<<<cuda_blocks(std::size_t(impl_->n_leaves) * kLeafSize, threads),
                            threads>>>(d, box, impl_->view(), n_b, float(p.h_min), impl_->flags, a,
                                       next_distance);
  cuda_check_launch("smoothing_length_kernel");
}

}  // namespace mpsph
