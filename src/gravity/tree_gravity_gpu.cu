// GPU tree walk (the CUDA driver of tree_gravity.cpp) and the GpuGravity entry point.
//
// One warp per target group (the CPU's groups, see octree_gpu.cuh). The warp walks the tree with a
// stack in global memory, testing up to 32 nodes at once (one per lane) with node_accepted():
// accepted nodes are compacted (ballot + popc) into a shared-memory node list, opened leaves are
// expanded cooperatively into a shared-memory particle list, opened internal nodes push their
// children. Whenever a list holds 32 entries the warp evaluates them for all its targets with
// node_interaction() / softened_factors() and keeps walking (Bonsai: Bedorf, Gaburov & Portegies
// Zwart 2012, J. Comput. Phys. 231, 2825; Ryoanji in SPH-EXA). Groups of g <= 16 targets use the
// idle lanes: lane = target (g rounded up to a power of two) x replica, the replicas split each
// list and are summed by shuffles at the end. Groups of 33..64 hold two targets per lane (the
// second slot is skipped, warp-uniformly, for smaller groups).
//
// The evaluation sums in float per target, as the CPU walk does; the order of the terms differs.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "gravity/device_buffer.cuh"
#include "gravity/gravity_gpu.hpp"
#include "gravity/gravity_kern.hpp"
#include "gravity/octree_gpu.cuh"

namespace mpsph {

namespace {

using gpu::DeviceBuffer;
using gpu::DeviceTreeView;

constexpr int kWarp = 32;
constexpr int kWalkWarps = 4;
constexpr int kWalkThreads = kWalkWarps * kWarp;
constexpr int kList = 2 * kWarp;  // list capacity: 32 awaiting evaluation + up to 32 new
constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxGroupSize = 2 * kWarp;

// Accepted nodes, three float4 per entry (three 16-byte shared loads per evaluation):
// (centre of mass relative to the group centre, mass), (qxx, qxy, qxz, qyy),
// (qyz, qzz, trace, mean eps^2).
struct NodeList {
  float4 a[kList], b[kList], c[kList];
};

// Direct sources: (position relative to the group centre, mass), eps^2, tree index.
struct PartList {
  float4 xm[kList];
  float e2[kList];
  int32_t idx[kList];
};

struct WalkArgs {
  DeviceTreeView t;
  OpeningParams opening;
  double G;
  int32_t* stacks;  // one stack of stack_cap node indices per resident warp
  int32_t stack_cap;
  // [0] next group (or single target), [1] stack overflow flag, [2] closed source nodes opened,
  // [3] single targets listed
  int32_t* ctrl;
  // [0] node interactions, [1] particle interactions, [2] the most SM cycles one group took
  unsigned long long* counts;
  Vec3d* acc;  // caller order
  double* pot;
  // Each target's share of its group's walk, in SM clock cycles of the warp (caller order; the
  // MPI decomposition's gravity cost, core/particle_cost.hpp); null: not recorded.
  uint32_t* walk_cost;
  // Active set of individual time steps: the targets are the particles with ti_end == tick
  // (caller order); null: every particle.
  const int64_t* ti_end;
  int64_t tick;
  // Further source trees (the locally essential trees of other MPI ranks), walked by every group
  // after the tree: their nodes and particles, and the index of each tree's root. A stack entry
  // c >= t.n_nodes is source node c - t.n_nodes; a particle index j >= t.particles.n is source
  // particle j - t.particles.n. n_roots = 0: none.
  const OctreeNode* src_nodes;
  TreeParticles src;
  const int32_t* src_roots;
  int32_t n_roots;
  // The targets (tree indices) of groups whose lists passed max_list entries (kMaxGroupList), each
  // walked alone by a warp of the second launch (singles_pass).
  int32_t* singles;
  long long max_list;
  bool singles_pass;
};

__device__ __forceinline__ const OctreeNode& node_at(const WalkArgs& a, int32_t c) {
  return c < a.t.n_nodes ? a.t.nodes[c] : a.src_nodes[c - a.t.n_nodes];
}

// Targets of one lane: TPL of them (targets t and t + 32 of the group).
template <int TPL>
struct Targets {
  Vec3f x[TPL];
  float e2[TPL];
  int32_t idx[TPL];  // tree index, -1 = no target
  float ax[TPL], ay[TPL], az[TPL], pot[TPL];
};

__device__ __forceinline__ int exclusive_scan(int v, int lane, int& total) {
  int x = v;
  for (int o = 1; o < kWarp; o <<= 1) {
    const int y = __shfl_up_sync(kFull, x, o);
    if (lane >= o) x += y;
  }
  total = __shfl_sync(kFull, x, kWarp - 1);
  return x - v;
}

template <SofteningKernel K, int TPL>
__device__ __forceinline__ void eval_nodes(const NodeList& L, int count, int sub, int replicas,
                                           int slots, Targets<TPL>& tg) {
  for (int k = sub; k < count; k += replicas) {
    const float4 a = L.a[k], b = L.b[k], q = L.c[k];
    const Vec3f c{a.x, a.y, a.z};
    const Multipole mp{a.w, b.x, b.y, b.z, b.w, q.x, q.y, q.z};
    const float ne2 = q.w;
#pragma unroll
    for (int u = 0; u < TPL; ++u) {
      if (u >= slots) break;  // warp-uniform: a group of <= 32 targets fills one slot per lane
      // Spline: accepted nodes lie beyond the softening support, where gravity is Newtonian.
      const float e2 = K == SofteningKernel::Spline ? 0.0f : 0.5f * (tg.e2[u] + ne2);
      const GravAccPot<float> r = node_interaction(tg.x[u] - c, mp, e2);
      tg.ax[u] += r.acc.x;
      tg.ay[u] += r.acc.y;
      tg.az[u] += r.acc.z;
      tg.pot[u] += r.pot;
    }
  }
}

template <SofteningKernel K, int TPL>
__device__ __forceinline__ void eval_particles(const PartList& L, int count, int sub, int replicas,
                                               int slots, Targets<TPL>& tg) {
  for (int k = sub; k < count; k += replicas) {
    const float4 s = L.xm[k];
    const float xj = s.x, yj = s.y, zj = s.z, mj = s.w, ej2 = L.e2[k];
    const int32_t j = L.idx[k];
#pragma unroll
    for (int u = 0; u < TPL; ++u) {
      if (u >= slots) break;
      // The target itself is in the list (its own leaf): zero mass and a harmless separation.
      const bool self = j == tg.idx[u];
      const Vec3f dx{self ? 1.0f : tg.x[u].x - xj, tg.x[u].y - yj, tg.x[u].z - zj};
      const GravAccPot<float> r =
          pair_interaction<float, K>(dx, self ? 0.0f : mj, 0.5f * (tg.e2[u] + ej2));
      tg.ax[u] += r.acc.x;
      tg.ay[u] += r.acc.y;
      tg.az[u] += r.acc.z;
      tg.pot[u] += r.pot;
    }
  }
}

__device__ __forceinline__ void copy_node_entry(NodeList& L, int to, int from) {
  L.a[to] = L.a[from], L.b[to] = L.b[from], L.c[to] = L.c[from];
}

__device__ __forceinline__ void copy_particle_entry(PartList& L, int to, int from) {
  L.xm[to] = L.xm[from], L.e2[to] = L.e2[from], L.idx[to] = L.idx[from];
}

template <SofteningKernel K, int TPL>
__global__ void __launch_bounds__(kWalkThreads, 4) walk_kernel(WalkArgs a) {
  __shared__ NodeList node_lists[kWalkWarps];
  __shared__ PartList part_lists[kWalkWarps];
  __shared__ int32_t target_lists[kWalkWarps][kMaxGroupSize];
  __shared__ int32_t outlier_lists[kWalkWarps][kMaxGroupSize];
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  NodeList& NL = node_lists[warp];
  PartList& PL = part_lists[warp];
  int32_t* stack = a.stacks + std::size_t(blockIdx.x * kWalkWarps + warp) * a.stack_cap;
  const unsigned lanes_below = (1u << lane) - 1u;
  const TreeParticles& P = a.t.particles;
  unsigned long long node_int = 0, part_int = 0;

  // The items: the groups, or (singles_pass) the single targets the first launch listed.
  const int32_t n_items = a.singles_pass ? a.ctrl[3] : a.t.n_groups;
  for (;;) {
    int g = 0;
    if (lane == 0) g = atomicAdd(&a.ctrl[0], 1);
    g = __shfl_sync(kFull, g, 0);
    if (g >= n_items) break;
    const long long clock_begin = clock64();
    // The targets: the group's active members (all of them without an active set), tree order.
    int32_t* targets = target_lists[warp];
    int ng = 0;
    if (a.singles_pass) {
      if (lane == 0) targets[0] = a.singles[g];
      ng = 1;
    } else {
      const int32_t gb = a.t.group_begin[g], ge = a.t.group_begin[g + 1];
      for (int32_t base = gb; base < ge; base += kWarp) {
        const int32_t i = base + lane;
        const bool on = i < ge && (!a.ti_end || a.ti_end[a.t.order[i]] == a.tick);
        const unsigned on_mask = __ballot_sync(kFull, on);
        if (on) targets[ng + __popc(on_mask & lanes_below)] = i;
        ng += __popc(on_mask);
      }
    }
    __syncwarp();
    if (ng == 0) continue;  // warp-uniform

    // Targets far below the group's largest |a_old| walk alone (acc_outlier, gravity_kern.hpp), as
    // in tree_gravity.cpp: the others stay first in targets[], the outliers go to outliers[].
    int32_t* outliers = outlier_lists[warp];
    int n_first = ng, n_out = 0;
    if (a.t.acc_old && !a.singles_pass) {
      double a_max = 0.0;
      for (int t = lane; t < ng; t += kWarp) a_max = fmax(a_max, a.t.acc_old[targets[t]]);
      for (int o = kWarp / 2; o > 0; o >>= 1) a_max = fmax(a_max, __shfl_xor_sync(kFull, a_max, o));
      int n_reg = 0;
      for (int base = 0; base < ng; base += kWarp) {
        const int t = base + lane;
        const int32_t i = t < ng ? targets[t] : -1;
        const bool out = t < ng && acc_outlier(a.t.acc_old[i], a_max);
        const bool reg = t < ng && !out;
        const unsigned out_mask = __ballot_sync(kFull, out), reg_mask = __ballot_sync(kFull, reg);
        __syncwarp();  // every lane has read its entry; the writes go to entries <= t
        if (out) outliers[n_out + __popc(out_mask & lanes_below)] = i;
        if (reg) targets[n_reg + __popc(reg_mask & lanes_below)] = i;
        n_reg += __popc(reg_mask);
        n_out += __popc(out_mask);
      }
      __syncwarp();
      n_first = n_reg;
    }

    // One walk for the group's other targets, then one for each outlier alone.
    long long pass_begin = clock_begin;
    for (int pass = 0; pass <= n_out; ++pass) {
      const int32_t* tl = pass == 0 ? targets : outliers + (pass - 1);
      const int nt = pass == 0 ? n_first : 1;
      if (nt == 0) continue;  // warp-uniform
      // Group geometry over the targets, as tree_gravity.cpp: bounding box, centre, largest
      // softening, min |a_old|.
      Vec3d lo = P.pos[tl[0]], hi = lo;
      float eps_max = 0.0f;
      double a_min = a.t.acc_old ? a.t.acc_old[tl[0]] : 0.0;
      for (int t = lane; t < nt; t += kWarp) {
        const int32_t i = tl[t];
        const Vec3d x = P.pos[i];
        lo = {fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z)};
        hi = {fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z)};
        eps_max = fmaxf(eps_max, P.eps[i]);
        if (a.t.acc_old) a_min = fmin(a_min, a.t.acc_old[i]);
      }
      for (int o = kWarp / 2; o > 0; o >>= 1) {
        lo.x = fmin(lo.x, __shfl_xor_sync(kFull, lo.x, o));
        lo.y = fmin(lo.y, __shfl_xor_sync(kFull, lo.y, o));
        lo.z = fmin(lo.z, __shfl_xor_sync(kFull, lo.z, o));
        hi.x = fmax(hi.x, __shfl_xor_sync(kFull, hi.x, o));
        hi.y = fmax(hi.y, __shfl_xor_sync(kFull, hi.y, o));
        hi.z = fmax(hi.z, __shfl_xor_sync(kFull, hi.z, o));
        eps_max = fmaxf(eps_max, __shfl_xor_sync(kFull, eps_max, o));
        a_min = fmin(a_min, __shfl_xor_sync(kFull, a_min, o));
      }
      const Vec3d centre = 0.5 * (lo + hi);
      TargetGroup tgroup;
      tgroup.half = {round_up_half(0.5 * (hi.x - lo.x)), round_up_half(0.5 * (hi.y - lo.y)),
                     round_up_half(0.5 * (hi.z - lo.z))};
      tgroup.eps_max = eps_max;
      tgroup.acc_min = float(a_min / a.G);

      // Lane layout: gp target slots (nt rounded up to a power of two), replicas = 32 / gp.
      int gp = 1;
      while (gp < nt && gp < kWarp) gp <<= 1;
      const int replicas = kWarp / gp;
      const int slot = lane & (gp - 1), sub = lane / gp;
      const int slots = nt > kWarp ? 2 : 1;  // targets per lane in use
      Targets<TPL> tg;
#pragma unroll
      for (int u = 0; u < TPL; ++u) {
        const int t = slot + u * kWarp;
        if (t < nt) {
          const int32_t i = tl[t];
          tg.x[u] = vec_cast<float>(P.pos[i] - centre);
          const float e = P.eps[i];
          tg.e2[u] = e * e;
          tg.idx[u] = i;
        } else {
          tg.x[u] = {0.0f, 0.0f, 0.0f};
          tg.e2[u] = 0.0f;
          tg.idx[u] = -1;
        }
        tg.ax[u] = tg.ay[u] = tg.az[u] = tg.pot[u] = 0.0f;
      }

      // The walk: the tree's root, then the source trees' roots.
      if (lane == 0) stack[0] = 0;
      for (int k = lane; k < a.n_roots; k += kWarp) stack[1 + k] = a.t.n_nodes + a.src_roots[k];
      int sp = 1 + a.n_roots, nn = 0, np = 0;
      long long list_nodes = 0, list_parts = 0;
      // A group whose lists pass max_list entries stops and lists its targets to walk alone.
      const bool may_split = pass == 0 && nt > 1 && a.max_list > 0;
      bool split = false;
      __syncwarp();
      while (sp > 0) {
        const int take = min(kWarp, sp);
        sp -= take;
        const int32_t c = lane < take ? stack[sp + lane] : -1;
        __syncwarp();
        bool accept = false;
        int n_child = 0, child_begin = 0, leaf_begin = 0, leaf_count = 0;
        NodeView nv{};
        if (c >= 0) {
          const OctreeNode& n = node_at(a, c);
          const bool source = c >= a.t.n_nodes;
          nv = node_view(n, centre);
          accept = node_accepted(tgroup, nv, a.opening);
          if (!accept) {
            if (n.n_child == 0) {
              leaf_begin = n.begin + (source ? a.t.particles.n : 0);
              leaf_count = n.end - n.begin;
              // A source node sent without its children (distributed_gravity.hpp).
              if (source && leaf_count == 0) atomicAdd(&a.ctrl[2], 1);
            } else {
              n_child = n.n_child;
              child_begin = n.child_begin + (source ? a.t.n_nodes : 0);
            }
          }
        }

        // Accepted nodes -> node list.
        const unsigned acc_mask = __ballot_sync(kFull, accept);
        if (accept) {
          const int s = nn + __popc(acc_mask & lanes_below);
          const OctreeNode& n = node_at(a, c);
          NL.a[s] = make_float4(nv.com.x, nv.com.y, nv.com.z, n.mp.mass);
          NL.b[s] = make_float4(n.mp.qxx, n.mp.qxy, n.mp.qxz, n.mp.qyy);
          NL.c[s] = make_float4(n.mp.qyz, n.mp.qzz, n.mp.trace, n.eps2_mean);
        }
        nn += __popc(acc_mask);
        list_nodes += __popc(acc_mask);
        __syncwarp();
        if (nn >= kWarp) {
          eval_nodes<K, TPL>(NL, kWarp, sub, replicas, slots, tg);
          __syncwarp();
          if (lane < nn - kWarp) copy_node_entry(NL, lane, lane + kWarp);
          nn -= kWarp;
          __syncwarp();
        }

        // Children of opened internal nodes -> stack.
        int pushed = 0;
        const int off = exclusive_scan(n_child, lane, pushed);
        if (sp + pushed <= a.stack_cap) {
          for (int k = 0; k < n_child; ++k) stack[sp + off + k] = child_begin + k;
          sp += pushed;
        } else if (lane == 0) {
          atomicExch(&a.ctrl[1], 1);  // cannot happen within the depth bound; reported by the host
        }
        __syncwarp();

        // Particles of opened leaves -> particle list, 32 at a time.
        int total = 0;
        const int loff = exclusive_scan(leaf_count, lane, total);
        list_parts += total;
        for (int base = 0; base < total; base += kWarp) {
          const int q = base + lane;
          int owner = 0;  // last lane whose leaf starts at or before q
          for (int s = kWarp / 2; s > 0; s >>= 1) {
            const int cand = owner + s;
            if (__shfl_sync(kFull, loff, cand) <= q) owner = cand;
          }
          const int owner_begin = __shfl_sync(kFull, leaf_begin, owner);
          const int owner_off = __shfl_sync(kFull, loff, owner);
          if (q < total) {
            const int32_t j = owner_begin + (q - owner_off);
            const bool source = j >= P.n;
            const TreeParticles& Q = source ? a.src : P;
            const int32_t jq = source ? j - P.n : j;
            const Vec3f d = vec_cast<float>(Q.pos[jq] - centre);
            const int s = np + lane;
            const float ej = Q.eps[jq];
            PL.xm[s] = make_float4(d.x, d.y, d.z, float(Q.mass[jq]));
            PL.e2[s] = ej * ej, PL.idx[s] = j;
          }
          np += min(kWarp, total - base);
          __syncwarp();
          if (np >= kWarp) {
            eval_particles<K, TPL>(PL, kWarp, sub, replicas, slots, tg);
            __syncwarp();
            if (lane < np - kWarp) copy_particle_entry(PL, lane, lane + kWarp);
            np -= kWarp;
            __syncwarp();
          }
        }
        if (may_split && list_nodes + list_parts > a.max_list) {  // warp-uniform
          split = true;
          break;
        }
      }
      if (split) {
        int base = 0;
        if (lane == 0) base = atomicAdd(&a.ctrl[3], nt);
        base = __shfl_sync(kFull, base, 0);
        for (int t = lane; t < nt; t += kWarp) a.singles[base + t] = tl[t];
        __syncwarp();
        pass_begin = clock64();
        continue;
      }
      if (nn > 0) eval_nodes<K, TPL>(NL, nn, sub, replicas, slots, tg);
      if (np > 0) eval_particles<K, TPL>(PL, np, sub, replicas, slots, tg);
      __syncwarp();

      // Sum the replicas of each target, write in the caller's order with G applied.
      for (int s = gp; s < kWarp; s <<= 1) {
#pragma unroll
        for (int u = 0; u < TPL; ++u) {
          tg.ax[u] += __shfl_xor_sync(kFull, tg.ax[u], s);
          tg.ay[u] += __shfl_xor_sync(kFull, tg.ay[u], s);
          tg.az[u] += __shfl_xor_sync(kFull, tg.az[u], s);
          tg.pot[u] += __shfl_xor_sync(kFull, tg.pot[u], s);
        }
      }
      // The group's cycles shared by its targets (lane 0's clock, one value for the warp).
      const long long cycles = __shfl_sync(kFull, clock64() - pass_begin, 0);
      if (lane == 0) atomicMax(&a.counts[2], (unsigned long long)cycles);
      const uint32_t share = uint32_t(max(1ll, min(cycles / nt, 0xffffffffll)));
      if (sub == 0) {
#pragma unroll
        for (int u = 0; u < TPL; ++u) {
          if (tg.idx[u] < 0) continue;
          const uint32_t out = a.t.order[tg.idx[u]];
          a.acc[out] = {a.G * double(tg.ax[u]), a.G * double(tg.ay[u]), a.G * double(tg.az[u])};
          a.pot[out] = a.G * double(tg.pot[u]);
          if (a.walk_cost) a.walk_cost[out] = share;
        }
      }
      node_int += (unsigned long long)(nt) * (unsigned long long)(list_nodes);
      part_int += (unsigned long long)(nt) * (unsigned long long)(list_parts - 1);
      pass_begin = clock64();
    }
  }
  if (lane == 0) {
    atomicAdd(&a.counts[0], node_int);
    atomicAdd(&a.counts[1], part_int);
  }
}

template <SofteningKernel K, int TPL>
int walk_blocks() {
  int dev = 0, sms = 0, per_sm = 0;
  cuda_check(cudaGetDevice(&dev), "querying the device");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "querying SMs");
  cuda_check(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk_kernel<K, TPL>, kWalkThreads, 0),
      "querying the walk occupancy");
  return sms * (per_sm > 0 ? per_sm : 1);
}

template <SofteningKernel K, int TPL>
void launch_walk(const WalkArgs& a, int blocks) {
  walk_kernel<K, TPL><<<blocks, kWalkThreads>>>(a);
  cuda_check_launch("tree walk");
}

// The SM clock's rate (the device's nominal rate: cycles of clock64()), in Hz; the attribute is
// read once per device and thread.
double clock_hz() {
  thread_local int device = -1;
  thread_local double hz = 0.0;
  int dev = 0;
  cuda_check(cudaGetDevice(&dev), "querying the device");
  if (dev != device) {
    int khz = 0;
    cuda_check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev), "querying the SM clock");
    device = dev, hz = 1e3 * double(khz > 0 ? khz : 1);
  }
  return hz;
}

double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  cuda_check(cudaEventElapsedTime(&ms, a, b), "reading a timing event");
  return double(ms);
}

void check_group_size(const GravityParams& p) {
  if (p.group_size < 1 || p.group_size > kMaxGroupSize) {
    throw Error("gravity.group_size = " + std::to_string(p.group_size) +
                ": the GPU tree walk takes 1.." + std::to_string(kMaxGroupSize) +
                " targets per group (two per lane of a warp)");
  }
}

// One LET message (let_kern.hpp) into the walk's source forest: its nodes with their links
// shifted by the forest's node and particle bases, its particles split into positions, masses
// and softenings.
__global__ void source_message_kernel(const OctreeNode* nodes, int32_t n_nodes,
                                      const LetParticle* parts, int32_t n_parts, int32_t node_base,
                                      int32_t part_base, OctreeNode* out_nodes, Vec3d* pos,
                                      double* mass, float* eps) {
  const int32_t i = int32_t(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n_nodes) {
    OctreeNode n = nodes[i];
    if (n.n_child > 0) n.child_begin += node_base;
    n.begin += part_base;
    n.end += part_base;
    out_nodes[i] = n;
  }
  if (i < n_parts) {
    const LetParticle q = parts[i];
    pos[i] = q.pos, mass[i] = q.mass, eps[i] = q.eps;
  }
}

__global__ void zero_kernel(Vec3d* acc, double* pot, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  acc[i] = {0.0, 0.0, 0.0};
  pot[i] = 0.0;
}

}  // namespace

struct GpuGravity::Impl {
  gpu::DeviceOctree tree;
  GpuDirectGravity direct;
  DeviceBuffer<int32_t> stacks;
  DeviceBuffer<int32_t> singles;  // the single targets of the walk's second launch
  DeviceBuffer<int32_t> ctrl;
  DeviceBuffer<unsigned long long> counts;
  // Source trees of walk_with_sources() (empty otherwise).
  DeviceBuffer<OctreeNode> src_nodes;
  DeviceBuffer<Vec3d> src_pos;
  DeviceBuffer<double> src_mass;
  DeviceBuffer<float> src_eps;
  DeviceBuffer<int32_t> src_roots;
  int32_t n_roots = 0, n_src_particles = 0;
  int src_generations = 0;
  cudaEvent_t ev[5] = {};
  bool have_previous = false;
  bool timed = false;
  bool was_direct = false;
  TreeWalkStats stats;

  Impl() {
    for (cudaEvent_t& e : ev) cuda_check(cudaEventCreate(&e), "creating a timing event");
  }
  ~Impl() {
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }

  // After walk(): waits for it, reads its status and counters into `stats`.
  void finish_walk() {
    cuda_check(cudaEventRecord(ev[4]), "recording an event");
    cuda_check(cudaEventSynchronize(ev[4]), "tree gravity");
    cuda_check(cudaGetLastError(), "tree gravity");
    int32_t status[4] = {0, 0, 0, 0};
    unsigned long long count[3] = {0, 0, 0};
    cuda_check(cudaMemcpy(status, ctrl.get(), sizeof(status), cudaMemcpyDeviceToHost),
               "walk status");
    cuda_check(cudaMemcpy(count, counts.get(), sizeof(count), cudaMemcpyDeviceToHost),
               "walk counters");
    if (status[1] != 0)
      throw Error("GPU tree walk: traversal stack overflow (tree deeper than sized)");
    stats.groups = std::size_t(tree.view().n_groups);
    stats.node_interactions = count[0];
    stats.particle_interactions = count[1];
    stats.closed_opened = std::size_t(status[2]);
    stats.longest_group_s = double(count[2]) / clock_hz();
    stats.split_targets = std::size_t(status[3]);
    timed = true;
    was_direct = false;
    have_previous = true;
  }

  // The source forest of the next walk: room for nn nodes and np particles, the roots uploaded;
  // false when there is none (the caller then fills nothing).
  bool set_sources(std::size_t nn, std::size_t np, const std::vector<int32_t>& roots,
                   int generations) {
    n_roots = int32_t(roots.size());
    n_src_particles = int32_t(np);
    src_generations = generations;
    if (n_roots == 0) return false;
    src_nodes.reserve(nn, "source tree nodes");
    src_roots.reserve(roots.size(), "source tree roots");
    src_pos.reserve(std::max<std::size_t>(np, 1), "source tree positions");
    src_mass.reserve(std::max<std::size_t>(np, 1), "source tree masses");
    src_eps.reserve(std::max<std::size_t>(np, 1), "source tree softenings");
    cuda_check(cudaMemcpy(src_roots.get(), roots.data(), roots.size() * sizeof(int32_t),
                          cudaMemcpyHostToDevice),
               "uploading source tree roots");
    return true;
  }
  // Every particle's walk with the sources, then the forest is dropped.
  TreeWalkStats walk_sources(const ParticleView& v, const GravityParams& p, double G) {
    walk(v, p, G, ActiveSet{});
    finish_walk();
    n_roots = 0;
    return stats;
  }

  void walk(const ParticleView& v, const GravityParams& p, double G, const ActiveSet& active) {
    const DeviceTreeView t = tree.view();
    ctrl.reserve(4, "walk control words");
    counts.reserve(4, "interaction counters");
    cuda_check(cudaMemset(ctrl.get(), 0, 4 * sizeof(int32_t)), "clearing the walk control words");
    cuda_check(cudaMemset(counts.get(), 0, 4 * sizeof(unsigned long long)),
               "clearing the counters");
    if (t.n_groups == 0) return;
    const bool two = p.group_size > kWarp;
    const bool spline = p.kernel == SofteningKernel::Spline;
    const int blocks = spline ? (two ? walk_blocks<SofteningKernel::Spline, 2>()
                                     : walk_blocks<SofteningKernel::Spline, 1>())
                              : (two ? walk_blocks<SofteningKernel::Plummer, 2>()
                                     : walk_blocks<SofteningKernel::Plummer, 1>());
    // A pop of <= 32 nodes pushes <= 256 children, and each generation below adds at most 224
    // entries that stay on the stack: 256 per generation bounds its depth (the source trees' roots
    // start on it).
    const int32_t cap = 256 * (std::max(t.generations, src_generations) + 1) + kWarp + n_roots;
    stacks.reserve(std::size_t(blocks) * kWalkWarps * std::size_t(cap), "tree-walk stacks");
    WalkArgs a;
    a.t = t;
    a.opening = opening_params(p);
    a.G = G;
    a.stacks = stacks.get();
    a.stack_cap = cap;
    a.ctrl = ctrl.get();
    a.counts = counts.get();
    a.acc = v.acc_grav;
    a.pot = v.pot;
    a.walk_cost = v.walk_cost;
    a.ti_end = active.all() ? nullptr : v.ti_end;
    a.tick = active.tick;
    a.src_nodes = n_roots > 0 ? src_nodes.get() : nullptr;
    a.src = TreeParticles{src_pos.get(), src_mass.get(), src_eps.get(), n_src_particles};
    a.src_roots = src_roots.get();
    a.n_roots = n_roots;
    singles.reserve(std::max<std::size_t>(std::size_t(t.particles.n), 1), "single targets");
    a.singles = singles.get();
    a.max_list = kMaxGroupList;
    a.singles_pass = false;
    // The groups, then the single targets of the groups that stopped (each on a warp of its own).
    for (const bool singles_pass : {false, true}) {
      a.singles_pass = singles_pass;
      if (singles_pass)
        cuda_check(cudaMemsetAsync(ctrl.get(), 0, sizeof(int32_t)), "clearing the item counter");
      if (spline) {
        two ? launch_walk<SofteningKernel::Spline, 2>(a, blocks)
            : launch_walk<SofteningKernel::Spline, 1>(a, blocks);
      } else {
        two ? launch_walk<SofteningKernel::Plummer, 2>(a, blocks)
            : launch_walk<SofteningKernel::Plummer, 1>(a, blocks);
      }
    }
  }
};

GpuGravity::GpuGravity() : impl_(std::make_unique<Impl>()) {}
GpuGravity::~GpuGravity() = default;

void GpuGravity::assume_previous() {
  impl_->have_previous = true;
}

void GpuGravity::compute(const ParticleView& v, const GravityParams& p, double G,
                         const ActiveSet& active, TreeUpdate update) {
  Impl& m = *impl_;
  m.timed = false;
  m.stats = {};
  if (!p.enabled) {
    if (v.n > 0) {
      zero_kernel<<<int((v.n + 255) / 256), 256>>>(v.acc_grav, v.pot, v.n);
      cuda_check_launch("zeroing gravity");
    }
    cuda_check(cudaDeviceSynchronize(), "zeroing gravity");
    return;
  }
  if (p.method == GravityMethod::Direct) {
    cuda_check(cudaEventRecord(m.ev[0]), "recording an event");
    m.direct.compute(v, p, G, true, active);
    cuda_check(cudaEventRecord(m.ev[4]), "recording an event");
    cuda_check(cudaEventSynchronize(m.ev[4]), "direct gravity");
    m.timed = true;
    m.was_direct = true;
    m.have_previous = true;
    return;
  }
  check_group_size(p);
  const bool relative = p.criterion == OpeningCriterion::Relative && m.have_previous;
  cuda_check(cudaEventRecord(m.ev[0]), "recording an event");
  const gpu::BuildEvents events{m.ev[1], m.ev[2], m.ev[3]};
  if (update != TreeUpdate::Refit ||
      !m.tree.refit(v, p.softening, p.leaf_size, p.group_size, relative, events))
    m.tree.build(v, p.softening, p.leaf_size, p.group_size, relative, events);
  m.n_roots = 0;
  m.walk(v, p, G, active);
  m.finish_walk();
}

void GpuGravity::build_in_cube(const ParticleView& v, const GravityParams& p, bool relative,
                               const Vec3d& cube_lo, double cube_size) {
  Impl& m = *impl_;
  check_group_size(p);
  m.timed = false;
  m.stats = {};
  gpu::BoundingCube cube;
  cube.lo = cube_lo;
  cube.size = cube_size;
  cube.centre = cube_lo + Vec3d{0.5 * cube_size, 0.5 * cube_size, 0.5 * cube_size};
  cuda_check(cudaEventRecord(m.ev[0]), "recording an event");
  m.tree.build(v, p.softening, p.leaf_size, p.group_size, relative,
               gpu::BuildEvents{m.ev[1], m.ev[2], m.ev[3]}, &cube);
}

TreeWalkStats GpuGravity::walk_with_sources(const ParticleView& v, const GravityParams& p, double G,
                                            const SourceForest& f) {
  Impl& m = *impl_;
  const std::size_t nn = f.nodes.size(), np = f.pos.size();
  if (m.set_sources(nn, np, f.roots, f.generations)) {
    auto up = [](void* d, const void* h, std::size_t bytes) {
      if (bytes > 0)
        cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "uploading source trees");
    };
    up(m.src_nodes.get(), f.nodes.data(), nn * sizeof(OctreeNode));
    up(m.src_pos.get(), f.pos.data(), np * sizeof(Vec3d));
    up(m.src_mass.get(), f.mass.data(), np * sizeof(double));
    up(m.src_eps.get(), f.eps.data(), np * sizeof(float));
  }
  return m.walk_sources(v, p, G);
}

TreeWalkStats GpuGravity::walk_with_device_sources(const ParticleView& v, const GravityParams& p,
                                                   double G, const DeviceSourceMessages& src) {
  Impl& m = *impl_;
  std::size_t nn = 0, np = 0;
  std::vector<int32_t> roots;
  for (const LetCounts& c : src.counts) {
    if (c.nodes > 0) roots.push_back(int32_t(nn));
    nn += std::size_t(c.nodes), np += std::size_t(c.particles);
  }
  if (m.set_sources(nn, np, roots, src.generations)) {
    std::size_t node_base = 0, part_base = 0;
    for (std::size_t k = 0; k < src.counts.size(); ++k) {
      const LetCounts& c = src.counts[k];
      const std::size_t items = std::size_t(std::max(c.nodes, c.particles));
      if (items == 0) continue;
      const unsigned char* msg = src.data + src.offsets[k];
      source_message_kernel<<<unsigned((items + 255) / 256), 256>>>(
          reinterpret_cast<const OctreeNode*>(msg), int32_t(c.nodes),
          reinterpret_cast<const LetParticle*>(msg + std::size_t(c.nodes) * sizeof(OctreeNode)),
          int32_t(c.particles), int32_t(node_base), int32_t(part_base),
          m.src_nodes.get() + node_base, m.src_pos.get() + part_base, m.src_mass.get() + part_base,
          m.src_eps.get() + part_base);
      cuda_check_launch("source_message_kernel");
      node_base += std::size_t(c.nodes), part_base += std::size_t(c.particles);
    }
  }
  return m.walk_sources(v, p, G);
}

void GpuGravity::set_scratch(DeviceScratch* scratch, bool copies_in_scratch) {
  impl_->tree.set_scratch(scratch, copies_in_scratch);
}

std::size_t GpuGravity::tree_nodes() const {
  return impl_->tree.node_count();
}

std::size_t GpuGravity::tree_node_capacity() const {
  return impl_->tree.node_capacity();
}

std::size_t GpuGravity::device_bytes() const {
  const Impl& m = *impl_;
  return m.tree.device_bytes() + m.direct.device_bytes() + m.stacks.bytes() + m.ctrl.bytes() +
         m.counts.bytes();
}

GpuGravityTimings GpuGravity::last_timings() const {
  const Impl& m = *impl_;
  GpuGravityTimings t;
  if (!m.timed) return t;
  if (m.was_direct) {
    t.walk_ms = elapsed_ms(m.ev[0], m.ev[4]);
    return t;
  }
  t.keys_sort_ms = elapsed_ms(m.ev[0], m.ev[1]);
  t.build_ms = elapsed_ms(m.ev[1], m.ev[2]);
  t.moments_ms = elapsed_ms(m.ev[2], m.ev[3]);
  t.walk_ms = elapsed_ms(m.ev[3], m.ev[4]);
  return t;
}

const TreeWalkStats& GpuGravity::last_walk_stats() const {
  return impl_->stats;
}

GpuGravity::DeviceTree GpuGravity::device_tree() const {
  const gpu::DeviceTreeView v = impl_->tree.view();
  return DeviceTree{v.nodes, v.n_nodes, v.particles, v.acc_old, v.generations};
}

void GpuGravity::download_tree(std::vector<OctreeNode>& nodes, std::vector<uint32_t>& order) const {
  impl_->tree.download(nodes, order);
}

}  // namespace mpsph
