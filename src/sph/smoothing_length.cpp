#include "sph/smoothing_length.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/constants.hpp"
#include "core/error.hpp"

namespace mpsph {

namespace {

// The previous step's h as the search radius (issue #16): a radius search of kReuseRadius h_prev
// around i costs less than a k-nearest search (no candidate heap) and gives the same k nearest
// whenever the k-th nearest lies inside the sphere: every particle closer than it is then in the
// sphere. 2h holds N_B neighbours, so 2.2 h_prev holds the k = N_B + 1 nearest unless the
// neighbourhood thinned by more than ~25% in volume since the last step.
constexpr double kReuseRadius = 2.2;

// Fills by_r2[0..k) with the k nearest gas particles of i (canonical squared distance, index; the
// k-th nearest last, the others unordered), and returns true; false when the sphere of
// kReuseRadius h_prev does not certainly hold them (then the caller searches k-nearest). In a
// periodic box the sphere must lie inside the ghost layer, which also rules out two images of one
// particle (the layer is at most half the smallest edge).
bool within_previous_h(const ParticleStore& store, const Box& box, const SphNeighbours& nb,
                       std::size_t i, std::size_t k, std::vector<uint32_t>& cand,
                       std::vector<std::pair<double, uint32_t>>& by_r2) {
  const double h_prev = store.h[i];
  if (!(h_prev > 0.0) || !std::isfinite(h_prev)) return false;
  const double radius = kReuseRadius * h_prev;
  if (box.periodic && !(radius < nb.ghost_width())) return false;
  nb.within(nb.tree_position(i), radius, cand);
  if (cand.size() < k) return false;
  by_r2.resize(cand.size());
  for (std::size_t m = 0; m < cand.size(); ++m)
    by_r2[m] = {norm2(min_image(store.pos[i] - store.pos[cand[m]], box)), cand[m]};
  std::nth_element(by_r2.begin(), by_r2.begin() + (k - 1), by_r2.end());
  // The k-th nearest strictly inside the sphere (the slack covers the difference between tree and
  // canonical distances, ~1e-16 relative).
  return by_r2[k - 1].first < radius * radius * (1.0 - 1e-9);
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

  std::vector<double> d2_in(n), d2_out(n);
  std::vector<uint32_t> knn(n * k);  // kept for build_pairs (SphNeighbours::set_candidates)
  const std::size_t n_act = active.gas_count(n);
  std::vector<uint32_t> todo(n_act);
  for (std::size_t k = 0; k < n_act; ++k) todo[k] = static_cast<uint32_t>(active[k]);
  const std::vector<uint32_t> act = todo;
  bool reuse_h = true;
  for (;;) {
    const std::ptrdiff_t n_todo = static_cast<std::ptrdiff_t>(todo.size());
#pragma omp parallel
    {
      std::vector<double> tree_d2(k), r2(k);
      std::vector<uint32_t> cand;
      std::vector<std::pair<double, uint32_t>> by_r2;
#pragma omp for schedule(dynamic, 256)
      for (std::ptrdiff_t t = 0; t < n_todo; ++t) {
        const std::size_t i = todo[t];
        uint32_t* idx = knn.data() + i * k;
        if (reuse_h && within_previous_h(store, box, nb, i, k, cand, by_r2)) {
          // The k nearest by canonical distance, found inside the sphere of radius
          // kReuseRadius h_prev (see within_previous_h): the same set as the k-nearest search.
          for (std::size_t m = 0; m < k; ++m) idx[m] = by_r2[m].second, r2[m] = by_r2[m].first;
          d2_out[i] = r2[n_b];
          d2_in[i] = *std::max_element(r2.begin(), r2.begin() + n_b);
          continue;
        }
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
    std::vector<uint32_t> redo;
    double d_max = 0.0;
    for (const uint32_t i : todo) {
      const double d = std::sqrt(d2_out[i]);
      if (d > nb.ghost_width()) {
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
  const float h_min = float(params.h_min);
  std::vector<uint8_t> recount(n, 0);
  std::vector<float> covered_h(n, 0.f);
  float h_max = 0.f;
#pragma omp parallel for reduction(max : h_max)
  for (std::ptrdiff_t k = 0; k < sn; ++k) {
    const std::size_t i = act[std::size_t(k)];
    const float h = std::max(smoothing_length_between(d2_in[i], d2_out[i]), h_min);
    store.h[i] = h;
    h_max = std::max(h_max, h);
    // 2h <= d_{N+1} with d_N < 2h: exactly N_B inside; otherwise (ties, floor) count them.
    recount[i] = support2(h) > d2_out[i];
    store.nngb[i] = static_cast<int32_t>(n_b);
    // The k-list holds all that a tree search of radius 2h (1 + slack) would return when that
    // radius stays below d_{N+1}: then build_pairs needs no second search for i.
    const double radius = 2.0 * double(h) * (1.0 + kTreeRadiusSlack);
    if (radius * radius < d2_out[i]) covered_h[i] = h;
  }

  nb.ensure_ghost_width(store, box, 2.0 * double(h_max) * (1.0 + kTreeRadiusSlack));
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
