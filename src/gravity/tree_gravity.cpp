#include "gravity/tree_gravity.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cpu_features.hpp"

namespace mpsph {

namespace {

struct Range {
  int32_t begin, end;
};

// Target groups tile [0, n): the largest nodes holding <= group_size particles, and leaves that
// hold more (possible when group_size < leaf_size) cut into consecutive chunks.
std::vector<Range> make_groups(const OctreeView& t, int group_size) {
  std::vector<Range> groups;
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const OctreeNode& n = t.nodes[stack.back()];
    stack.pop_back();
    if (n.end - n.begin <= group_size) {
      groups.push_back({n.begin, n.end});
    } else if (n.n_child == 0) {
      for (int32_t b = n.begin; b < n.end; b += group_size) {
        groups.push_back({b, std::min(n.end, b + group_size)});
      }
    } else {
      for (int32_t c = n.child_begin + n.n_child - 1; c >= n.child_begin; --c) stack.push_back(c);
    }
  }
  return groups;
}

// Per-thread interaction lists, gathered relative to the group centre (float, as the kernels
// use them); the vectors keep their capacity from group to group.
struct Lists {
  std::vector<int32_t> stack;
  std::vector<Range> leaves;
  std::vector<int32_t> accepted;           // node indices whose multipoles act on the group
  std::vector<float> sx, sy, sz, sm, se2;  // direct sources: position, mass, eps^2
  std::vector<int32_t> self_slot;          // slot of each group target in the direct list
  // Accepted nodes, structure of arrays so that the evaluation loop vectorises: centre of mass,
  // mass, quadrupole (xx xy xz yy yz zz), trace, mean eps^2 (Plummer).
  std::vector<float> nx, ny, nz, nm, nq0, nq1, nq2, nq3, nq4, nq5, ntr, ne2;

  // Appends the nodes of tree t listed in `accepted` to the node arrays (sized once, no
  // per-element capacity checks).
  void gather_nodes(const OctreeView& t, const Vec3d& centre) {
    const std::size_t k0 = nm.size(), n = k0 + accepted.size();
    for (auto* v : {&nx, &ny, &nz, &nm, &nq0, &nq1, &nq2, &nq3, &nq4, &nq5, &ntr, &ne2}) {
      v->resize(n);
    }
    for (std::size_t k = k0; k < n; ++k) {
      const OctreeNode& nd = t.nodes[accepted[k - k0]];
      const Vec3f c = vec_cast<float>(nd.com - centre);
      nx[k] = c.x, ny[k] = c.y, nz[k] = c.z, nm[k] = nd.mp.mass;
      nq0[k] = nd.mp.qxx, nq1[k] = nd.mp.qxy, nq2[k] = nd.mp.qxz;
      nq3[k] = nd.mp.qyy, nq4[k] = nd.mp.qyz, nq5[k] = nd.mp.qzz;
      ntr[k] = nd.mp.trace, ne2[k] = nd.eps2_mean;
    }
  }

  // Fills the direct-source arrays from the `leaves` of the targets' tree t and records each
  // target's slot (targets = true), or appends those of a source tree (targets = false).
  void gather_particles(const OctreeView& t, const Vec3d& centre, Range g, bool targets) {
    std::size_t k = targets ? 0 : sm.size(), n = k;
    for (const Range& r : leaves) n += std::size_t(r.end - r.begin);
    for (auto* v : {&sx, &sy, &sz, &sm, &se2}) v->resize(n);
    // Every target sits in a leaf that overlaps the group box, so it is never accepted as a
    // multipole and has exactly one slot in the direct list.
    if (targets) self_slot.assign(std::size_t(g.end - g.begin), -1);
    for (const Range& r : leaves) {
      for (int32_t j = r.begin; j < r.end; ++j, ++k) {
        if (targets && j >= g.begin && j < g.end) self_slot[std::size_t(j - g.begin)] = int32_t(k);
        const Vec3f d = vec_cast<float>(t.particles.pos[j] - centre);
        sx[k] = d.x, sy[k] = d.y, sz[k] = d.z;
        sm[k] = float(t.particles.mass[j]);
        se2[k] = t.particles.eps[j] * t.particles.eps[j];
      }
    }
  }
};

// The evaluation loops work in blocks of kBlock interactions, each adding into lane j of
// per-target partial sums: a loop without a reduction, which GCC vectorises even through the
// kernels' small structs. The lanes are summed once per target, so the summation order does not
// depend on the vector width.
constexpr int32_t kBlock = 64;

struct LaneSums {
  float ax[kBlock], ay[kBlock], az[kBlock], pot[kBlock];

  void zero() {
    for (int32_t j = 0; j < kBlock; ++j) ax[j] = ay[j] = az[j] = pot[j] = 0.0f;
  }
  GravAccPot<float> total() const {
    GravAccPot<float> r{{0.0f, 0.0f, 0.0f}, 0.0f};
    for (int32_t j = 0; j < kBlock; ++j) r.acc.x += ax[j], r.acc.y += ay[j], r.acc.z += az[j];
    for (int32_t j = 0; j < kBlock; ++j) r.pot += pot[j];
    return r;
  }
};

// Direct sources [k0, k1) acting on a target at xi (eps_i^2 = ei2); accumulates per unit G.
template <SofteningKernel K>
[[gnu::always_inline]] inline void add_particles(const Lists& L, int32_t k0, int32_t k1,
                                                 const Vec3f& xi, float ei2, LaneSums& b) {
  const float* sx = L.sx.data();
  const float* sy = L.sy.data();
  const float* sz = L.sz.data();
  const float* sm = L.sm.data();
  const float* se2 = L.se2.data();
  for (int32_t kb = k0; kb < k1; kb += kBlock) {
    const int32_t n = std::min(kBlock, k1 - kb);
    for (int32_t j = 0; j < n; ++j) {
      const int32_t k = kb + j;
      const Vec3f dx{xi.x - sx[k], xi.y - sy[k], xi.z - sz[k]};
      const GravAccPot<float> r = pair_interaction<float, K>(dx, sm[k], 0.5f * (ei2 + se2[k]));
      b.ax[j] += r.acc.x, b.ay[j] += r.acc.y, b.az[j] += r.acc.z, b.pot[j] += r.pot;
    }
  }
}

// Accepted nodes acting on a target at xi; accumulates per unit G.
template <SofteningKernel K>
[[gnu::always_inline]] inline void add_nodes(const Lists& L, const Vec3f& xi, float ei2,
                                             LaneSums& b) {
  const int32_t nn = int32_t(L.nm.size());
  const float *nx = L.nx.data(), *ny = L.ny.data(), *nz = L.nz.data(), *nm = L.nm.data();
  const float *q0 = L.nq0.data(), *q1 = L.nq1.data(), *q2 = L.nq2.data(), *q3 = L.nq3.data();
  const float *q4 = L.nq4.data(), *q5 = L.nq5.data(), *tr = L.ntr.data(), *ne2 = L.ne2.data();
  for (int32_t kb = 0; kb < nn; kb += kBlock) {
    const int32_t n = std::min(kBlock, nn - kb);
    for (int32_t j = 0; j < n; ++j) {
      const int32_t k = kb + j;
      // Spline: accepted nodes lie beyond the softening support, where gravity is Newtonian.
      const float e2 = K == SofteningKernel::Spline ? 0.0f : 0.5f * (ei2 + ne2[k]);
      const Multipole mp{nm[k], q0[k], q1[k], q2[k], q3[k], q4[k], q5[k], tr[k]};
      const Vec3f dx{xi.x - nx[k], xi.y - ny[k], xi.z - nz[k]};
      const GravAccPot<float> r = node_interaction(dx, mp, e2);
      b.ax[j] += r.acc.x, b.ay[j] += r.acc.y, b.az[j] += r.acc.z, b.pot[j] += r.pot;
    }
  }
}

// Evaluates the targets of range g that `in` admits (in(i): tree position i) against the lists;
// accumulates in float (a few thousand terms per target: round-off ~1e-6 relative, far below the
// tree's truncation error).
template <SofteningKernel K, class In>
[[gnu::always_inline]] inline void evaluate_group_body(const OctreeView& t, Range g,
                                                       const Vec3d& centre, const Lists& L,
                                                       double G, const In& in, Vec3d* acc,
                                                       double* pot) {
  const int32_t ns = int32_t(L.sm.size());
  LaneSums b;
  for (int32_t i = g.begin; i < g.end; ++i) {
    if (!in(i)) continue;
    const Vec3f xi = vec_cast<float>(t.particles.pos[i] - centre);
    const float ei = t.particles.eps[i];
    const float ei2 = ei * ei;
    b.zero();
    // The target itself is in the direct list (its leaf overlaps the group): skip its slot by
    // summing the two ranges around it, which keeps the inner loops free of tests.
    const int32_t self = L.self_slot[std::size_t(i - g.begin)];
    add_particles<K>(L, 0, self, xi, ei2, b);
    add_particles<K>(L, self + 1, ns, xi, ei2, b);
    add_nodes<K>(L, xi, ei2, b);
    const GravAccPot<float> r = b.total();
    const uint32_t out = t.order[i];
    acc[out] = G * vec_cast<double>(r.acc);
    pot[out] = G * double(r.pot);
  }
}

// The evaluation compiled twice, for the baseline x86-64 ISA and for AVX-512 (16 float lanes),
// which the CPU picks at run time. Both give the same bits: every operation is per lane of the
// kBlock partial sums (whose count does not depend on the vector width), IEEE sqrt and division
// are exact in any width, and this file is compiled with -ffp-contract=off so that no multiply
// and add are fused in the AVX-512 copy (CMakeLists.txt).
template <SofteningKernel K, class In>
void evaluate_group_base(const OctreeView& t, Range g, const Vec3d& centre, const Lists& L,
                         double G, const In& in, Vec3d* acc, double* pot) {
  evaluate_group_body<K>(t, g, centre, L, G, in, acc, pot);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MPSPH_GRAVITY_AVX512 1
template <SofteningKernel K, class In>
__attribute__((target("avx512f"))) void evaluate_group_avx512(const OctreeView& t, Range g,
                                                              const Vec3d& centre, const Lists& L,
                                                              double G, const In& in, Vec3d* acc,
                                                              double* pot) {
  evaluate_group_body<K>(t, g, centre, L, G, in, acc, pot);
}
#endif

template <SofteningKernel K, class In>
void evaluate_group(const OctreeView& t, Range g, const Vec3d& centre, const Lists& L, double G,
                    const In& in, Vec3d* acc, double* pot, bool allow_avx512) {
#ifdef MPSPH_GRAVITY_AVX512
  if (allow_avx512 && use_avx512_copies()) {
    evaluate_group_avx512<K>(t, g, centre, L, G, in, acc, pot);
    return;
  }
#endif
  evaluate_group_base<K>(t, g, centre, L, G, in, acc, pot);
}

// One tree walk for a group: accepted nodes of t into L.accepted, unaccepted leaves into L.leaves.
// A node of a source tree that was sent without its children or particles (n_child = 0 and
// begin == end) is never opened: it is used as a multipole and counted in `closed_opened` when the
// criterion would have opened it.
void walk(const OctreeView& t, const TargetGroup& tg, const Vec3d& centre, const OpeningParams& op,
          Lists& L, std::size_t& closed_opened) {
  L.leaves.clear();
  L.accepted.clear();
  if (t.n_nodes == 0) return;
  L.stack.assign(1, 0);
  while (!L.stack.empty()) {
    const int32_t ni = L.stack.back();
    const OctreeNode& n = t.nodes[ni];
    L.stack.pop_back();
    const NodeView nv = node_view(n, centre);
    if (node_accepted(tg, nv, op)) {
      L.accepted.push_back(ni);
    } else if (n.n_child == 0 && n.end == n.begin) {
      ++closed_opened;
      L.accepted.push_back(ni);
    } else if (n.n_child == 0) {
      L.leaves.push_back({n.begin, n.end});
    } else {
      for (int32_t c = n.child_begin + n.n_child - 1; c >= n.child_begin; --c) L.stack.push_back(c);
    }
  }
}

}  // namespace

bool tree_gravity_uses_avx512() {
  return cpu_has_avx512();
}

TreeWalkStats tree_gravity(const OctreeView& t, const TreeWalkParams& params, double G,
                           const double* acc_old, Vec3d* acc, double* pot, const uint8_t* active,
                           const OctreeView* sources, int n_sources, uint32_t* walk_cost) {
  TreeWalkStats stats;
  if (t.n_nodes == 0) return stats;
  const std::vector<Range> groups = make_groups(t, std::max(1, params.group_size));
  stats.groups = groups.size();
  std::size_t n_node_int = 0, n_part_int = 0, n_closed = 0, n_split = 0;
#pragma omp parallel reduction(+ : n_node_int, n_part_int, n_closed, n_split)
  {
    Lists L;
#pragma omp for schedule(dynamic, 8)
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const Range g = groups[gi];
      auto targeted = [&](int32_t i) { return !active || active[t.order[i]]; };
      // Targets whose |a_old| is far below the group's largest walk alone (acc_outlier).
      double a_max = 0.0;
      if (acc_old)
        for (int32_t i = g.begin; i < g.end; ++i)
          if (targeted(i)) a_max = std::max(a_max, acc_old[t.order[i]]);
      auto outlier = [&](int32_t i) { return acc_old && acc_outlier(acc_old[t.order[i]], a_max); };
      // One walk and evaluation for the targets of range r that `in` admits: geometry over them
      // (bounding box, softening maximum, smallest |a_old|/G), the lists of the targets' own tree
      // and of each source tree, then the admitted targets evaluated. Returns false, evaluating
      // nothing, when more than one target's lists pass kMaxGroupList entries (gravity_kern.hpp):
      // each then walks alone.
      auto walk_targets = [&](Range r, auto in) {
        int32_t first = r.begin;
        while (first < r.end && !in(first)) ++first;
        if (first == r.end) return true;
        Vec3d lo = t.particles.pos[first], hi = lo;
        float eps_max = 0.0f;
        double a_min = acc_old ? acc_old[t.order[first]] : 0.0;
        std::size_t n_targets = 0;
        for (int32_t i = first; i < r.end; ++i) {
          if (!in(i)) continue;
          ++n_targets;
          const Vec3d& x = t.particles.pos[i];
          lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
          hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
          eps_max = std::max(eps_max, t.particles.eps[i]);
          if (acc_old) a_min = std::min(a_min, acc_old[t.order[i]]);
        }
        const Vec3d centre = 0.5 * (lo + hi);
        TargetGroup tg;
        tg.half = {round_up_half(0.5 * (hi.x - lo.x)), round_up_half(0.5 * (hi.y - lo.y)),
                   round_up_half(0.5 * (hi.z - lo.z))};
        tg.eps_max = eps_max;
        tg.acc_min = float(a_min / G);

        // Walk: accepted nodes go to the multipole list, unaccepted leaves to the direct list;
        // the targets' own tree first, then each source tree.
        L.nm.clear();
        L.sm.clear();
        walk(t, tg, centre, params.opening, L, n_closed);
        L.gather_nodes(t, centre);
        L.gather_particles(t, centre, r, true);
        for (int s = 0; s < n_sources; ++s) {
          walk(sources[s], tg, centre, params.opening, L, n_closed);
          L.gather_nodes(sources[s], centre);
          L.gather_particles(sources[s], centre, r, false);
        }
        if (n_targets > 1 && (long long)(L.nm.size() + L.sm.size()) > kMaxGroupList) return false;
        if (params.opening.kernel == SofteningKernel::Spline) {
          evaluate_group<SofteningKernel::Spline>(t, r, centre, L, G, in, acc, pot,
                                                  params.allow_avx512);
        } else {
          evaluate_group<SofteningKernel::Plummer>(t, r, centre, L, G, in, acc, pot,
                                                   params.allow_avx512);
        }
        n_node_int += n_targets * L.nm.size();
        n_part_int += n_targets * (L.sm.size() - 1);
        if (walk_cost) {
          const std::size_t per = std::max<std::size_t>(1, L.nm.size() + L.sm.size() - 1);
          const uint32_t cost = uint32_t(std::min<std::size_t>(per, UINT32_MAX));
          for (int32_t i = r.begin; i < r.end; ++i)
            if (in(i)) walk_cost[t.order[i]] = cost;
        }
        return true;
      };
      auto regular = [&](int32_t i) { return targeted(i) && !outlier(i); };
      const bool together = walk_targets(g, regular);
      for (int32_t i = g.begin; i < g.end; ++i) {
        if (!targeted(i) || (together && !outlier(i))) continue;
        walk_targets({i, i + 1}, targeted);
        if (!outlier(i)) ++n_split;
      }
    }
  }
  stats.node_interactions = n_node_int;
  stats.particle_interactions = n_part_int;
  stats.closed_opened = n_closed;
  stats.split_targets = n_split;
  return stats;
}

}  // namespace mpsph
