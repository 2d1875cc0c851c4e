#include "sph/smoothing_length.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/constants.hpp"
#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "sph/gas_boxes.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MPSPH_SPH_AVX512 1
#endif

namespace mpsph {

namespace {

// The previous step's h as the search radius (issue #16): a radius search of kReuseRadius h_prev
// around i gives the same k nearest as a k-nearest search whenever the k-th nearest lies inside
// the sphere: every particle closer than it is then in the sphere. 2h holds N_B neighbours, so
// 2.2 h_prev holds the k = N_B + 1 nearest unless the neighbourhood thinned by more than ~25% in
// volume since the last step.
constexpr double kReuseRadius = 2.2;

// Consecutive active particles (store order: key order after the order stage, so they are
// close in space) share one search for candidate leaves (GasBoxes) within the largest of their
// radii; each member then measures the particles of the leaves within its own radius. Two
// leaves' worth: at Evrard N = 1e5 the stage took ~8% less than with groups of one leaf (fewer
// box-tree queries; the members' box tests over the larger hit list are cheap), as much as with
// four.
constexpr std::size_t kGroupSize = 2 * GasBoxes::kLeaf;

// Per-thread buffers of the grouped radius searches.
struct ReuseScratch {
  std::vector<GasBoxes::Hit> hits;  // leaves near the group
  // The hits' boxes and image shifts as structure of arrays (AVX-512 path): 9 rows of
  // hits.size() doubles: lo x y z, hi x y z, shift x y z.
  std::vector<double> hit_boxes;
  std::vector<uint32_t> near;  // particles that pass a member's first test
  std::vector<double> d2;      // and their squared distances
  std::vector<double> sel;     // selection buffer

  // Room for one more leaf past nn in near and d2.
  void reserve_leaf(std::size_t nn) {
    if (near.size() < nn + GasBoxes::kLeaf) {
      near.resize(2 * (nn + GasBoxes::kLeaf));
      d2.resize(near.size());
    }
  }
};

// The search radius from the previous h, or 0 when there is none or (periodic box) the sphere
// would not lie inside the ghost layer of the tree (the k-nearest search takes such particles).
// The layer is at most half the smallest edge, which also rules out two images of one particle
// inside the sphere.
double reuse_radius(const ParticleStore& store, const Box& box, const SphNeighbours& nb,
                    std::size_t i) {
  const double h_prev = store.h[i];
  if (!(h_prev > 0.0) || !std::isfinite(h_prev)) return 0.0;
  const double radius = kReuseRadius * h_prev;
  if (box.periodic && !(radius * (1.0 + 1e-5) < nb.ghost_width())) return 0.0;
  return radius;
}

// Longest buffer of the insertion selections below; longer ones take std::nth_element.
constexpr std::size_t kMaxInsertion = 32;

// The m-th and (m-1)-th largest of a[0, n) (2 <= m <= min(n, kMaxInsertion)): the m largest kept
// in an ascending buffer by insertion.
void mth_largest(const double* a, std::size_t n, std::size_t m, double& mth, double& before) {
  double top[kMaxInsertion];
  for (std::size_t q = 0; q < m; ++q) {
    const double v = a[q];
    std::size_t p = q;
    for (; p > 0 && top[p - 1] > v; --p) top[p] = top[p - 1];
    top[p] = v;
  }
  for (std::size_t q = m; q < n; ++q) {
    const double v = a[q];
    if (!(v > top[0])) continue;
    std::size_t p = 1;
    for (; p < m && top[p] < v; ++p) top[p - 1] = top[p];
    top[p - 1] = v;
  }
  mth = top[0];
  before = top[1];
}

// The m-th and (m-1)-th smallest of a[0, n) (2 <= m <= min(n, kMaxInsertion)), likewise.
void mth_smallest(const double* a, std::size_t n, std::size_t m, double& mth, double& before) {
  double bot[kMaxInsertion];
  for (std::size_t q = 0; q < m; ++q) {
    const double v = a[q];
    std::size_t p = q;
    for (; p > 0 && bot[p - 1] < v; --p) bot[p] = bot[p - 1];
    bot[p] = v;
  }
  for (std::size_t q = m; q < n; ++q) {
    const double v = a[q];
    if (!(v < bot[0])) continue;
    std::size_t p = 1;
    for (; p < m && bot[p] > v; ++p) bot[p - 1] = bot[p];
    bot[p - 1] = v;
  }
  mth = bot[0];
  before = bot[1];
}

// The (k-1)-th and k-th smallest of d2[0, n) (1-based, counted with multiplicity; 2 <= k <= n),
// the values std::nth_element would give. The values are split (branch-free) at `pivot`, a guess
// of the k-th smallest (the previous (2h)^2: the previous step's N_B-th and (N_B+1)-th neighbours
// lie on either side of it); with c below it, the two are the largest below and the smallest above
// when c = k - 1, else taken by a short insertion selection on the side that holds them.
void two_order_statistics(const double* d2, std::size_t n, std::size_t k, double pivot,
                          std::vector<double>& sel, double& in2, double& out2) {
  sel.resize(2 * n);
  double* below = sel.data();
  double* above = below + n;
  std::size_t c = 0;
  for (std::size_t q = 0; q < n; ++q) {
    const double v = d2[q];
    below[c] = v;
    above[q - c] = v;
    c += v < pivot;
  }
  const std::size_t n_above = n - c;
  if (c + 1 == k) {
    in2 = *std::max_element(below, below + c);
    out2 = *std::min_element(above, above + n_above);
  } else if (c >= k && c - k + 2 <= kMaxInsertion) {
    mth_largest(below, c, c - k + 2, in2, out2);
  } else if (c + 2 <= k && k - c <= kMaxInsertion) {
    mth_smallest(above, n_above, k - c, out2, in2);
  } else {
    std::copy(d2, d2 + n, below);
    std::nth_element(below, below + (k - 1), below + n);
    out2 = below[k - 1];
    in2 = *std::max_element(below, below + (k - 1));
  }
}

// Appends to near/d2 at nn the particles p of [b, e) (e - b <= GasBoxes::kLeaf) with
// r = |x_p - q|^2 < r2w, and r; returns the new nn. The arrays need room for kLeaf entries past nn.
// Branch-free: every slot is written, and kept only when it passes.
std::size_t leaf_within_base(const double* px, const double* py, const double* pz, std::size_t b,
                             std::size_t e, const Vec3d& q, double r2w, uint32_t* near, double* d2,
                             std::size_t nn) {
  for (std::size_t p = b; p < e; ++p) {
    const double dx = px[p] - q.x, dy = py[p] - q.y, dz = pz[p] - q.z;
    const double r = dx * dx + dy * dy + dz * dz;
    near[nn] = uint32_t(p);
    d2[nn] = r;
    nn += r < r2w;
  }
  return nn;
}

#ifdef MPSPH_SPH_AVX512
// The same for AVX-512 (two vectors of 8 doubles, compressed stores): the same bits, since every
// operation is the scalar one per lane (IEEE subtraction, multiplication and addition in the same
// order; this file is compiled with -ffp-contract=off, CMakeLists.txt, so that no multiply and add
// are fused).
__attribute__((target("avx512f"))) std::size_t leaf_within_avx512(
    const double* px, const double* py, const double* pz, std::size_t b, std::size_t e,
    const Vec3d& q, double r2w, uint32_t* near, double* d2, std::size_t nn) {
  static_assert(GasBoxes::kLeaf == 16, "two vectors of 8 doubles per leaf");
  const unsigned live = (1u << (e - b)) - 1u;
  const __m512d qx = _mm512_set1_pd(q.x), qy = _mm512_set1_pd(q.y), qz = _mm512_set1_pd(q.z);
  const __m512d lim = _mm512_set1_pd(r2w);
  __mmask8 in[2];
  __m512d r[2];
  for (int h = 0; h < 2; ++h) {
    const __mmask8 m = __mmask8(live >> (8 * h));
    const std::size_t o = b + 8 * std::size_t(h);
    const __m512d dx = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, px + o), qx);
    const __m512d dy = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, py + o), qy);
    const __m512d dz = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, pz + o), qz);
    r[h] = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                         _mm512_mul_pd(dz, dz));
    in[h] = _mm512_mask_cmp_pd_mask(m, r[h], lim, _CMP_LT_OQ);
  }
  const __mmask16 both = __mmask16(unsigned(in[0]) | (unsigned(in[1]) << 8));
  const __m512i index =
      _mm512_add_epi32(_mm512_set1_epi32(int(b)),
                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  _mm512_storeu_si512(near + nn, _mm512_maskz_compress_epi32(both, index));
  const std::size_t n0 = std::size_t(__builtin_popcount(unsigned(in[0])));
  _mm512_storeu_pd(d2 + nn, _mm512_maskz_compress_pd(in[0], r[0]));
  _mm512_storeu_pd(d2 + nn + n0, _mm512_maskz_compress_pd(in[1], r[1]));
  return nn + n0 + std::size_t(__builtin_popcount(unsigned(in[1])));
}
#endif

// The particles of the group's hit leaves within r2w of a member at xi (tree position), appended
// to sc.near/sc.d2 from 0 (each image a leaf is hit under is seen from the leaf: xi - shift);
// returns their number. A leaf is measured only when its box lies within r2w. Scalar copy.
std::size_t member_within_base(ReuseScratch& sc, const GasBoxes& boxes, const Vec3d& xi,
                               double r2w) {
  std::size_t nn = 0;
  for (const GasBoxes::Hit& hit : sc.hits) {
    const Vec3d q = xi - boxes.shift(hit.image);  // i seen from the unshifted leaf
    const Vec3d &blo = boxes.leaf_lo(hit.leaf), &bhi = boxes.leaf_hi(hit.leaf);
    const double gx = std::max({0.0, blo.x - q.x, q.x - bhi.x});
    const double gy = std::max({0.0, blo.y - q.y, q.y - bhi.y});
    const double gz = std::max({0.0, blo.z - q.z, q.z - bhi.z});
    if (gx * gx + gy * gy + gz * gz > r2w) continue;
    sc.reserve_leaf(nn);
    nn = leaf_within_base(boxes.x(), boxes.y(), boxes.z(), boxes.leaf_begin(hit.leaf),
                          boxes.leaf_end(hit.leaf), q, r2w, sc.near.data(), sc.d2.data(), nn);
  }
  return nn;
}

#ifdef MPSPH_SPH_AVX512
// sc.hit_boxes from sc.hits, once per group.
void fill_hit_boxes(ReuseScratch& sc, const GasBoxes& boxes) {
  const std::size_t nh = sc.hits.size();
  sc.hit_boxes.resize(9 * nh);
  double* b = sc.hit_boxes.data();
  for (std::size_t h = 0; h < nh; ++h) {
    const Vec3d &lo = boxes.leaf_lo(sc.hits[h].leaf), &hi = boxes.leaf_hi(sc.hits[h].leaf);
    const Vec3d s = boxes.shift(sc.hits[h].image);
    const double v[9] = {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, s.x, s.y, s.z};
    for (std::size_t a = 0; a < 9; ++a) b[a * nh + h] = v[a];
  }
}

// member_within_base for AVX-512: the box tests 8 hits at a time (the same per-lane operations,
// so the same decisions), the leaves by leaf_within_avx512.
__attribute__((target("avx512f"))) std::size_t member_within_avx512(ReuseScratch& sc,
                                                                    const GasBoxes& boxes,
                                                                    const Vec3d& xi, double r2w) {
  const std::size_t nh = sc.hits.size();
  const double* b = sc.hit_boxes.data();
  const __m512d zero = _mm512_setzero_pd(), lim = _mm512_set1_pd(r2w);
  const __mmask8 all = 0xFF;  // maskz_max: max_pd's undefined pass-through warns in GCC 12
  const __m512d xx = _mm512_set1_pd(xi.x), xy = _mm512_set1_pd(xi.y), xz = _mm512_set1_pd(xi.z);
  std::size_t nn = 0;
  for (std::size_t h0 = 0; h0 < nh; h0 += 8) {
    const __mmask8 live = nh - h0 >= 8 ? __mmask8(0xFF) : __mmask8((1u << (nh - h0)) - 1u);
    const double* c = b + h0;
    const __m512d qx = _mm512_sub_pd(xx, _mm512_maskz_loadu_pd(live, c + 6 * nh));
    const __m512d qy = _mm512_sub_pd(xy, _mm512_maskz_loadu_pd(live, c + 7 * nh));
    const __m512d qz = _mm512_sub_pd(xz, _mm512_maskz_loadu_pd(live, c + 8 * nh));
    const __m512d gx = _mm512_maskz_max_pd(
        all, zero,
        _mm512_maskz_max_pd(all, _mm512_sub_pd(_mm512_maskz_loadu_pd(live, c), qx),
                            _mm512_sub_pd(qx, _mm512_maskz_loadu_pd(live, c + 3 * nh))));
    const __m512d gy = _mm512_maskz_max_pd(
        all, zero,
        _mm512_maskz_max_pd(all, _mm512_sub_pd(_mm512_maskz_loadu_pd(live, c + nh), qy),
                            _mm512_sub_pd(qy, _mm512_maskz_loadu_pd(live, c + 4 * nh))));
    const __m512d gz = _mm512_maskz_max_pd(
        all, zero,
        _mm512_maskz_max_pd(all, _mm512_sub_pd(_mm512_maskz_loadu_pd(live, c + 2 * nh), qz),
                            _mm512_sub_pd(qz, _mm512_maskz_loadu_pd(live, c + 5 * nh))));
    const __m512d g2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(gx, gx), _mm512_mul_pd(gy, gy)),
                                     _mm512_mul_pd(gz, gz));
    unsigned pass = _mm512_mask_cmp_pd_mask(live, g2, lim, _CMP_LE_OQ);
    while (pass != 0) {
      const GasBoxes::Hit& hit = sc.hits[h0 + std::size_t(__builtin_ctz(pass))];
      pass &= pass - 1;
      sc.reserve_leaf(nn);
      const Vec3d q = xi - boxes.shift(hit.image);
      nn = leaf_within_avx512(boxes.x(), boxes.y(), boxes.z(), boxes.leaf_begin(hit.leaf),
                              boxes.leaf_end(hit.leaf), q, r2w, sc.near.data(), sc.d2.data(), nn);
    }
  }
  return nn;
}
#endif

// For each member of the group members[0, m) with a reuse_radius, the k nearest gas particles
// when the sphere of that radius certainly holds them: the k-th nearest (canonical distance) lies
// strictly inside it (the slack covers the difference between wrapped and canonical distances,
// ~1e-16 relative). Then d2_in and d2_out are set as the k-nearest search sets them, and
// done[t] = 1; the others are left to it.
// When the member's 2h (the rule of smoothing_length_between, floor h_min) stays within its
// sphere, every gas particle inside 2h is among the candidates: inside[i] gets their count (self
// included; N_B unless ties at d_{N+1} or the floor put more inside), and when the others fit in
// the k slots of knn row i they go there, in store order (the rest padded with i itself), and
// covered_h[i] = h, so that
// build_pairs filters them instead of searching the tree (the row then holds every j with
// canonical r_ij < 2 h_i, all that its filter keeps of a search).
void within_previous_h(const ParticleStore& store, const Box& box, const SphNeighbours& nb,
                       const GasBoxes& boxes, const uint32_t* members, std::size_t m, std::size_t k,
                       float h_min, uint32_t* knn, double* d2_in, double* d2_out, int32_t* inside,
                       float* covered_h, uint8_t* done, ReuseScratch& sc) {
  double radius[kGroupSize];
  Vec3d lo{0, 0, 0}, hi{0, 0, 0};
  double r_max = 0.0;
  bool any = false;
  for (std::size_t t = 0; t < m; ++t) {
    radius[t] = reuse_radius(store, box, nb, members[t]);
    if (!(radius[t] > 0.0)) continue;
    const Vec3d x = nb.tree_position(members[t]);
    lo = any ? Vec3d{std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)} : x;
    hi = any ? Vec3d{std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)} : x;
    r_max = std::max(r_max, radius[t]);
    any = true;
  }
  if (!any) return;
  // Wrapped positions differ from the canonical separations by rounding (~1e-16 |x|): the
  // first tests use the radius widened by 1e-6, the canonical distance decides.
  constexpr double kWiden = 1.0 + 1e-6;
  boxes.leaves_near(lo, hi, r_max * kWiden, sc.hits);
  // Open box: the positions are the store's, so the first test's distances are the canonical
  // ones bit for bit (x_j - x_i is exactly -(x_i - x_j)), and the radius needs no widening.
  const double widen = box.periodic ? kWiden : 1.0;
  const bool avx512 = use_avx512_copies();
#ifdef MPSPH_SPH_AVX512
  if (avx512) fill_hit_boxes(sc, boxes);
#endif
  for (std::size_t t = 0; t < m; ++t) {
    if (!(radius[t] > 0.0)) continue;
    const std::size_t i = members[t];
    const Vec3d xi = nb.tree_position(i);
    const double r2 = radius[t] * radius[t];
    const double r2w = r2 * widen * widen;
    // Particles of the leaves within reach whose image lies within the (widened) radius, with
    // their squared distances.
#ifdef MPSPH_SPH_AVX512
    std::size_t nn =
        avx512 ? member_within_avx512(sc, boxes, xi, r2w) : member_within_base(sc, boxes, xi, r2w);
#else
    std::size_t nn = member_within_base(sc, boxes, xi, r2w);
#endif
    uint32_t* near = sc.near.data();
    double* d2 = sc.d2.data();
    if (box.periodic) {
      // Canonical distances decide. Each particle passed for at most one image: two images are
      // an edge apart, and the radius is below half of it (reuse_radius).
      std::size_t kept = 0;
      for (std::size_t q = 0; q < nn; ++q) {
        const uint32_t j = near[q];
        const double r = norm2(min_image(store.pos[i] - store.pos[j], box));
        near[kept] = j;
        d2[kept] = r;
        kept += r < r2;
      }
      nn = kept;
    }
    if (nn < k) continue;
    // d_N^2 and d_{N+1}^2: the (k-1)-th and k-th smallest; the latter must lie strictly inside
    // the sphere (the slack covers the difference between wrapped and canonical distances, ~1e-16
    // relative).
    double in2, out2;
    two_order_statistics(d2, nn, k, support2(store.h[i]), sc.sel, in2, out2);
    if (!(out2 < r2 * (1.0 - 1e-9))) continue;
    d2_out[i] = out2;
    d2_in[i] = in2;
    done[t] = 1;
    // Every particle with canonical distance < 2h is among the candidates when (2h)^2 <= r2.
    const float h = std::max(smoothing_length_between(in2, out2), h_min);
    const double s2 = support2(h);
    if (!(s2 <= r2)) continue;
    uint32_t* row = knn + i * k;
    int32_t count = 0;
    std::size_t c = 0;
    for (std::size_t q = 0; q < nn; ++q) {
      if (!(d2[q] < s2)) continue;
      ++count;
      if (near[q] == i) continue;
      if (c < k) row[c] = near[q];
      ++c;
    }
    inside[i] = count;
    if (c > k) continue;
    for (; c < k; ++c) row[c] = uint32_t(i);  // padding: build_pairs skips j == i
    covered_h[i] = h;
  }
}

}  // namespace

void compute_smoothing_lengths(ParticleStore& store, const Box& box, const SphParams& params,
                               SphNeighbours& nb, const ActiveSet& active,
                               std::vector<double>* next_distance) {
  const std::size_t n = store.n_gas();
  const std::size_t n_b = static_cast<std::size_t>(params.n_neighbours);
  const std::size_t k = n_b + 1;  // d_{N+1} is needed too
  if (n == 0) {
    if (next_distance) next_distance->clear();
    nb.build_tree(store, box, 0.0);
    return;
  }
  if (!params.enough_gas(n))
    throw Error("sph.n_neighbours = " + std::to_string(n_b) + " needs at least " +
                std::to_string(k) + " gas particles; there are " + std::to_string(n));

  // Periodic: first ghost layer 1.5x the N_B+1 neighbour radius of a uniform distribution; the
  // loop below widens it for the particles whose neighbours reach further.
  double width = 0.0;
  const double half_edge = 0.5 * std::min({box.size.x, box.size.y, box.size.z});
  if (box.periodic) {
    const double volume = box.size.x * box.size.y * box.size.z;
    width = 1.5 * std::cbrt(3.0 * double(k) * volume / (4.0 * cgs::kPi * double(n)));
  }
  nb.build_tree(store, box, width);

  // Buffers kept in nb between calls (no fresh pages per step); every entry read below is
  // written first in this call.
  SmoothingLengthBuffers& buf = nb.h_buffers();
  std::vector<double>& d2_in = buf.d2_in;
  std::vector<double>& d2_out = buf.d2_out;
  d2_in.resize(n);
  d2_out.resize(n);
  // The k nearest of each particle, handed to build_pairs (SphNeighbours::set_candidates).
  std::vector<uint32_t> knn;
  std::vector<float> covered_h;
  nb.take_candidate_buffers(knn, covered_h);
  knn.resize(n * k);
  const std::size_t n_act = active.gas_count(n);
  std::vector<uint32_t>& todo = buf.todo;
  todo.resize(n_act);
  for (std::size_t k = 0; k < n_act; ++k) todo[k] = static_cast<uint32_t>(active[k]);
  std::vector<uint32_t>& act = buf.act;
  act = todo;
  const float h_min = float(params.h_min);
  // Count of gas inside 2h found by the grouped search (-1: not counted there).
  std::vector<int32_t>& inside = buf.inside;
  inside.assign(n, -1);
  covered_h.assign(n, 0.f);
  bool reuse_h = true;
  GasBoxes& boxes = buf.boxes;
  std::vector<uint8_t>& done = buf.done;
  std::vector<uint32_t>& rest = buf.rest;
  for (;;) {
    // First round: the k nearest from radius searches around the previous h, by groups; the
    // particles they do not settle (and every particle of later rounds) take the k-nearest search.
    const std::vector<uint32_t>* knn_todo = &todo;
    if (reuse_h) {
      done.assign(todo.size(), 0);
      boxes.build(nb.tree_points(), n, box);
      const std::ptrdiff_t n_groups =
          static_cast<std::ptrdiff_t>((todo.size() + kGroupSize - 1) / kGroupSize);
#pragma omp parallel
      {
        ReuseScratch sc;
#pragma omp for schedule(dynamic, 16)
        for (std::ptrdiff_t g = 0; g < n_groups; ++g) {
          const std::size_t t0 = std::size_t(g) * kGroupSize;
          const std::size_t m = std::min(kGroupSize, todo.size() - t0);
          within_previous_h(store, box, nb, boxes, todo.data() + t0, m, k, h_min, knn.data(),
                            d2_in.data(), d2_out.data(), inside.data(), covered_h.data(),
                            done.data() + t0, sc);
        }
      }
      rest.clear();
      for (std::size_t t = 0; t < todo.size(); ++t)
        if (!done[t]) rest.push_back(todo[t]);
      knn_todo = &rest;
    }
    const std::ptrdiff_t n_todo = static_cast<std::ptrdiff_t>(knn_todo->size());
    if (n_todo > 0) nb.ensure_index();
#pragma omp parallel
    {
      std::vector<double> tree_d2(k), r2(k);
#pragma omp for schedule(dynamic, 256)
      for (std::ptrdiff_t t = 0; t < n_todo; ++t) {
        const std::size_t i = (*knn_todo)[t];
        uint32_t* idx = knn.data() + i * k;
        // The tree holds >= n >= k points, so all k are found.
        const std::size_t found = nb.nearest(nb.tree_position(i), k, idx, tree_d2.data());
        // Canonical distances decide; the tree's only pick the candidates.
        for (std::size_t m = 0; m < found; ++m)
          r2[m] = norm2(min_image(store.pos[i] - store.pos[idx[m]], box));
        std::nth_element(r2.begin(), r2.begin() + n_b, r2.begin() + found);
        d2_out[i] = r2[n_b];
        d2_in[i] = *std::max_element(r2.begin(), r2.begin() + n_b);
      }
    }
    reuse_h = false;  // particles redone with a wider ghost layer take the k-nearest search
    if (!box.periodic) break;
    // A result is exact when d_{N+1} <= ghost width: every image that close is in the tree.
    std::vector<uint32_t>& redo = buf.redo;
    redo.clear();
    double d_max = 0.0;
    for (const uint32_t i : todo) {
      const double d = std::sqrt(d2_out[i]);
      if (d > nb.ghost_width()) {
        // (Never one of the grouped search: its sphere lies inside the ghost layer.) The
        // k-nearest search refills the row, and the count is taken anew.
        inside[i] = -1;
        covered_h[i] = 0.f;
        redo.push_back(i);
        d_max = std::max(d_max, d);
      }
    }
    if (redo.empty()) break;
    if (!(d_max < half_edge))
      throw Error("sph: the distance to gas neighbour number " + std::to_string(k) + " (" +
                  std::to_string(d_max) + ") reaches half the smallest periodic box edge (" +
                  std::to_string(half_edge) +
                  "): too few gas particles for sph.n_neighbours = " + std::to_string(n_b));
    nb.build_tree(store, box, std::min(1.25 * d_max, half_edge));
    todo.swap(redo);
  }

  const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n_act);
  std::vector<uint8_t>& recount = buf.recount;
  recount.assign(n, 0);
  float h_max = 0.f;
  bool any_recount = false;
#pragma omp parallel for reduction(max : h_max) reduction(|| : any_recount)
  for (std::ptrdiff_t k = 0; k < sn; ++k) {
    const std::size_t i = act[std::size_t(k)];
    const float h = std::max(smoothing_length_between(d2_in[i], d2_out[i]), h_min);
    store.h[i] = h;
    h_max = std::max(h_max, h);
    // 2h <= d_{N+1} with d_N < 2h: exactly N_B inside; otherwise (ties, floor) count them.
    recount[i] = support2(h) > d2_out[i] && inside[i] < 0;
    any_recount = any_recount || recount[i];
    store.nngb[i] =
        support2(h) > d2_out[i] && inside[i] >= 0 ? inside[i] : static_cast<int32_t>(n_b);
    // From the k-nearest search: the k-list holds all that a tree search of radius 2h (1 +
    // slack) would return when that radius stays below d_{N+1}: then build_pairs needs no second
    // search for i. (The grouped search set covered_h itself.)
    const double radius = 2.0 * double(h) * (1.0 + kTreeRadiusSlack);
    if (inside[i] < 0 && radius * radius < d2_out[i]) covered_h[i] = h;
  }

  nb.ensure_ghost_width(store, box, 2.0 * double(h_max) * (1.0 + kTreeRadiusSlack));
  if (any_recount) nb.ensure_index();
#pragma omp parallel
  {
    std::vector<uint32_t> cand;
#pragma omp for schedule(dynamic, 64)
    for (std::ptrdiff_t k = 0; k < sn; ++k) {
      const std::size_t i = act[std::size_t(k)];
      if (!recount[i]) continue;
      const double s_i = support2(store.h[i]);
      nb.within(nb.tree_position(i), 2.0 * double(store.h[i]) * (1.0 + kTreeRadiusSlack), cand);
      int32_t count = 0;
      for (const uint32_t j : cand)
        count += norm2(min_image(store.pos[i] - store.pos[j], box)) < s_i;
      store.nngb[i] = count;
    }
  }
  if (next_distance) {
    next_distance->assign(n, 0.0);
    for (const uint32_t i : act) (*next_distance)[i] = std::sqrt(d2_out[i]);
  }
  nb.set_candidates(k, std::move(knn), std::move(covered_h));
}

}  // namespace mpsph
