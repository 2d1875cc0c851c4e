#include "sph/gas_boxes.hpp"

#include <algorithm>

namespace mpsph {

namespace {

// Squared distance between the boxes [alo, ahi] and [blo, bhi] (0 when they overlap).
double box_gap2(const Vec3d& alo, const Vec3d& ahi, const Vec3d& blo, const Vec3d& bhi) {
  const double gx = std::max({0.0, alo.x - bhi.x, blo.x - ahi.x});
  const double gy = std::max({0.0, alo.y - bhi.y, blo.y - ahi.y});
  const double gz = std::max({0.0, alo.z - bhi.z, blo.z - ahi.z});
  return gx * gx + gy * gy + gz * gz;
}

}  // namespace

void GasBoxes::build(const Vec3d* pos, std::size_t n, const Box& box) {
  n_ = n;
  x_.resize(n);
  y_.resize(n);
  z_.resize(n);
  const std::size_t n_leaves = (n + kLeaf - 1) / kLeaf;
  // Levels of (m + 1) / 2 nodes each up to one; the vectors keep their capacity between builds.
  std::size_t n_levels = 1;
  for (std::size_t m = n_leaves; m > 1; m = (m + 1) / 2) ++n_levels;
  lo_.resize(n_levels);
  hi_.resize(n_levels);
  lo_[0].resize(n_leaves);
  hi_[0].resize(n_leaves);
  const std::ptrdiff_t sl = static_cast<std::ptrdiff_t>(n_leaves);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t l = 0; l < sl; ++l) {
    const std::size_t b = std::size_t(l) * kLeaf, e = std::min(n, b + kLeaf);
    Vec3d lo = pos[b], hi = pos[b];
    for (std::size_t i = b; i < e; ++i) {
      const Vec3d& p = pos[i];
      x_[i] = p.x, y_[i] = p.y, z_[i] = p.z;
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
    lo_[0][std::size_t(l)] = lo;
    hi_[0][std::size_t(l)] = hi;
  }
  // Unions of pairs of consecutive nodes up to a single root.
  for (std::size_t level = 1; level < n_levels; ++level) {
    const std::vector<Vec3d>& clo = lo_[level - 1];
    const std::vector<Vec3d>& chi = hi_[level - 1];
    const std::size_t m = (clo.size() + 1) / 2;
    std::vector<Vec3d>& plo = lo_[level];
    std::vector<Vec3d>& phi = hi_[level];
    plo.resize(m);
    phi.resize(m);
    for (std::size_t k = 0; k < m; ++k) {
      plo[k] = clo[2 * k], phi[k] = chi[2 * k];
      if (2 * k + 1 < clo.size()) {
        const Vec3d &a = clo[2 * k + 1], &b = chi[2 * k + 1];
        plo[k] = {std::min(plo[k].x, a.x), std::min(plo[k].y, a.y), std::min(plo[k].z, a.z)};
        phi[k] = {std::max(phi[k].x, b.x), std::max(phi[k].y, b.y), std::max(phi[k].z, b.z)};
      }
    }
  }
  shifts_.assign(1, Vec3d{0, 0, 0});
  if (box.periodic)
    for (int a = -1; a <= 1; ++a)
      for (int b = -1; b <= 1; ++b)
        for (int c = -1; c <= 1; ++c)
          if (a != 0 || b != 0 || c != 0)
            shifts_.push_back({a * box.size.x, b * box.size.y, c * box.size.z});
}

void GasBoxes::leaves_near(const Vec3d& lo, const Vec3d& hi, double dist,
                           std::vector<Hit>& out) const {
  out.clear();
  if (n_ == 0) return;
  const double d2 = dist * dist;
  const int top = int(lo_.size()) - 1;
  struct Item {
    int level;
    uint32_t node;
  };
  Item stack[128];
  for (uint32_t s = 0; s < uint32_t(shifts_.size()); ++s) {
    // Points p seen at p + shift near [lo, hi]: p near [lo, hi] - shift.
    const Vec3d qlo = lo - shifts_[s], qhi = hi - shifts_[s];
    int sp = 0;
    stack[sp++] = {top, 0};
    while (sp > 0) {
      const Item it = stack[--sp];
      const Vec3d& nlo = lo_[std::size_t(it.level)][it.node];
      const Vec3d& nhi = hi_[std::size_t(it.level)][it.node];
      if (box_gap2(nlo, nhi, qlo, qhi) > d2) continue;
      if (it.level == 0) {
        out.push_back({it.node, s});
        continue;
      }
      // Children pushed right first, so that leaves come out in store order.
      const std::size_t nc = lo_[std::size_t(it.level - 1)].size();
      const uint32_t c = 2 * it.node;
      if (c + 1 < nc) stack[sp++] = {it.level - 1, c + 1};
      stack[sp++] = {it.level - 1, c};
    }
  }
}

}  // namespace mpsph
