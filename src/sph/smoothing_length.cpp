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

void compute_smoothing_lengths(ParticleStore& store, const Box& box, const SphParams& params,
                               SphNeighbours& nb) {
  const std::size_t n = store.n_gas();
  const std::size_t n_b = static_cast<std::size_t>(params.n_neighbours);
  const std::size_t k = n_b + 1;  // d_{N+1} is needed too
  if (n == 0) {
    nb.build_tree(store, box, 0.0);
    return;
  }
  if (n < k)
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
  std::vector<uint32_t> todo(n);
  for (std::size_t i = 0; i < n; ++i) todo[i] = static_cast<uint32_t>(i);
  for (;;) {
    const std::ptrdiff_t n_todo = static_cast<std::ptrdiff_t>(todo.size());
#pragma omp parallel
    {
      std::vector<double> tree_d2(k), r2(k);
#pragma omp for schedule(dynamic, 256)
      for (std::ptrdiff_t t = 0; t < n_todo; ++t) {
        const std::size_t i = todo[t];
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

  const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n);
  const float h_min = float(params.h_min);
  std::vector<uint8_t> recount(n, 0);
  std::vector<float> covered_h(n, 0.f);
  float h_max = 0.f;
#pragma omp parallel for reduction(max : h_max)
  for (std::ptrdiff_t i = 0; i < sn; ++i) {
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
    for (std::ptrdiff_t i = 0; i < sn; ++i) {
      if (!recount[i]) continue;
      const double s_i = support2(store.h[i]);
      nb.within(nb.tree_position(i), 2.0 * double(store.h[i]) * (1.0 + kTreeRadiusSlack), cand);
      int32_t count = 0;
      for (const uint32_t j : cand)
        count += norm2(min_image(store.pos[i] - store.pos[j], box)) < s_i;
      store.nngb[i] = count;
    }
  }
  nb.set_candidates(k, std::move(knn), std::move(covered_h));
}

}  // namespace mpsph
