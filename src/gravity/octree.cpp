#include "gravity/octree.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/position_bounds.hpp"

namespace mpsph {

namespace {

// Generations with fewer nodes are processed by one thread: a parallel region costs more.
constexpr int32_t kMinParallelNodes = 512;

constexpr int kRadixBits = 11;  // 6 passes cover the 63 key bits
constexpr int kRadixBuckets = 1 << kRadixBits;

// Stable LSD radix sort of (key, value) pairs with per-thread histograms; the scratch vectors
// must have the same size. A pass whose digit is the same for every key is skipped.
void radix_sort_pairs(std::vector<uint64_t>& keys, std::vector<uint32_t>& vals,
                      std::vector<uint64_t>& keys_tmp, std::vector<uint32_t>& vals_tmp) {
  const std::size_t n = keys.size();
  const int nthreads = omp_get_max_threads();
  std::vector<std::size_t> hist(std::size_t(nthreads) * kRadixBuckets);
  for (int shift = 0; shift < 3 * kMortonLevels; shift += kRadixBits) {
    bool skip = false;
#pragma omp parallel num_threads(nthreads)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const std::size_t b = n * t / nt, e = n * (t + 1) / nt;
      std::size_t* h = &hist[std::size_t(t) * kRadixBuckets];
      std::fill(h, h + kRadixBuckets, std::size_t{0});
      for (std::size_t i = b; i < e; ++i) ++h[(keys[i] >> shift) & (kRadixBuckets - 1)];
#pragma omp barrier
#pragma omp single
      {
        // Offsets: digit-major, thread-minor, so equal digits keep their input order (stable).
        std::size_t sum = 0;
        for (int d = 0; d < kRadixBuckets; ++d) {
          std::size_t digit_total = 0;
          for (int u = 0; u < nt; ++u) {
            std::size_t& c = hist[std::size_t(u) * kRadixBuckets + d];
            digit_total += c;
            const std::size_t count = c;
            c = sum;
            sum += count;
          }
          if (digit_total == n) skip = true;
        }
      }
      if (!skip) {
        for (std::size_t i = b; i < e; ++i) {
          const std::size_t dst = h[(keys[i] >> shift) & (kRadixBuckets - 1)]++;
          keys_tmp[dst] = keys[i];
          vals_tmp[dst] = vals[i];
        }
      }
    }
    if (!skip) {
      keys.swap(keys_tmp);
      vals.swap(vals_tmp);
    }
  }
}

}  // namespace

void Octree::build(const Vec3d* pos, const double* mass, const float* eps, std::size_t n,
                   int leaf_size, const Vec3d& cube_lo, double cube_size) {
  if (n >= std::size_t(std::numeric_limits<int32_t>::max())) {
    throw Error("gravity octree: " + std::to_string(n) + " particles exceed the 2^31 limit");
  }
  if (leaf_size < 1) {
    throw Error("gravity octree: leaf_size must be >= 1, got " + std::to_string(leaf_size));
  }
  nodes_.clear();
  gen_begin_.assign(1, 0);
  leaf_size_ = leaf_size;
  compute_keys(pos, n, cube_lo, cube_size);
  sort_keys();
  pos_.resize(n);
  mass_.resize(n);
  eps_.resize(n);
  gather(pos, mass, eps);
  if (n == 0) return;
  build_nodes(leaf_size);
  upward_pass();
}

bool Octree::refit(const Vec3d* pos, const double* mass, const float* eps, std::size_t n,
                   int leaf_size) {
  if (n == 0 || n != pos_.size() || nodes_.empty() || leaf_size != leaf_size_) return false;
  gather(pos, mass, eps);
  upward_pass();
  return true;
}

void Octree::gather(const Vec3d* pos, const double* mass, const float* eps) {
  const std::size_t n = pos_.size();
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < n; ++k) {
    const uint32_t i = order_[k];
    pos_[k] = pos[i];
    mass_[k] = mass[i];
    eps_[k] = eps[i];
  }
}

void Octree::compute_keys(const Vec3d* pos, std::size_t n, const Vec3d& given_lo,
                          double given_size) {
  const PositionBounds b = position_bounds(pos, n);
  const double lx = b.lo.x, ly = b.lo.y, lz = b.lo.z, hx = b.hi.x, hy = b.hi.y, hz = b.hi.z;
  // A cube slightly larger than the bounding box, so the largest coordinate maps inside it.
  const double extent = std::max({hx - lx, hy - ly, hz - lz});
  cube_size_ = extent > 0.0 ? extent * (1.0 + 1e-9) : 1.0;
  cube_lo_ = n ? Vec3d{lx, ly, lz} : Vec3d{0, 0, 0};
  if (given_size > 0.0) {
    if (n &&
        (lx < given_lo.x || ly < given_lo.y || lz < given_lo.z || hx >= given_lo.x + given_size ||
         hy >= given_lo.y + given_size || hz >= given_lo.z + given_size))
      throw Error("gravity octree: a particle lies outside the given key cube");
    cube_lo_ = given_lo;
    cube_size_ = given_size;
  }
  keys_.resize(n);
  order_.resize(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    keys_[i] = morton_key(pos[i], cube_lo_, cube_size_);
    order_[i] = uint32_t(i);
  }
}

void Octree::sort_keys() {
  // The driver keeps particles in (type, key) order, so a one-type run arrives sorted.
  if (std::is_sorted(keys_.begin(), keys_.end())) return;
  keys_tmp_.resize(keys_.size());
  order_tmp_.resize(order_.size());
  radix_sort_pairs(keys_, order_, keys_tmp_, order_tmp_);
}

void Octree::build_nodes(int leaf_size) {
  OctreeNode root{};
  root.begin = 0;
  root.end = int32_t(pos_.size());
  nodes_.push_back(root);
  gen_begin_.push_back(1);
  const uint64_t* keys = keys_.data();
  for (;;) {
    const int32_t gb = gen_begin_[gen_begin_.size() - 2], ge = gen_begin_.back();
    child_count_.assign(std::size_t(ge - gb) + 1, 0);
#pragma omp parallel for schedule(static) if (ge - gb > kMinParallelNodes)
    for (int32_t i = gb; i < ge; ++i) {
      const int level = node_split_level(keys, nodes_[i].begin, nodes_[i].end, leaf_size);
      if (level < 0) continue;
      int32_t bounds[9];
      octant_bounds(keys, nodes_[i].begin, nodes_[i].end, level, bounds);
      child_count_[i - gb] = count_children(bounds);
    }
    // Exclusive scan of the child counts gives each node's first child.
    int32_t total = 0;
    for (int32_t& c : child_count_) {
      const int32_t count = c;
      c = total;
      total += count;
    }
    if (total == 0) break;
    nodes_.resize(std::size_t(ge) + std::size_t(total));
#pragma omp parallel for schedule(static) if (ge - gb > kMinParallelNodes)
    for (int32_t i = gb; i < ge; ++i) {
      OctreeNode& node = nodes_[i];
      node.child_begin = ge + child_count_[i - gb];
      node.n_child = child_count_[i - gb + 1] - child_count_[i - gb];
      if (node.n_child == 0) continue;
      int32_t bounds[9];
      octant_bounds(keys, node.begin, node.end,
                    node_split_level(keys, node.begin, node.end, leaf_size), bounds);
      int32_t c = node.child_begin;
      for (int k = 0; k < 8; ++k) {
        if (bounds[k + 1] == bounds[k]) continue;
        OctreeNode child{};
        child.begin = bounds[k];
        child.end = bounds[k + 1];
        nodes_[c++] = child;
      }
    }
    gen_begin_.push_back(ge + total);
  }
}

void Octree::upward_pass() {
  const TreeParticles p{pos_.data(), mass_.data(), eps_.data(), int32_t(pos_.size())};
  OctreeNode* nodes = nodes_.data();
  for (int g = generations() - 1; g >= 0; --g) {
#pragma omp parallel for schedule(static) if (gen_begin_[g + 1] - gen_begin_[g] > kMinParallelNodes)
    for (int32_t i = gen_begin_[g]; i < gen_begin_[g + 1]; ++i) {
      if (nodes[i].n_child == 0) {
        leaf_moments(nodes[i], p);
      } else {
        internal_moments(nodes[i], nodes);
      }
    }
  }
}

OctreeView Octree::view() const {
  return {nodes_.data(), int32_t(nodes_.size()),
          TreeParticles{pos_.data(), mass_.data(), eps_.data(), int32_t(pos_.size())},
          order_.data()};
}

}  // namespace mpsph
