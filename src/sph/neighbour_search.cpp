#include "sph/neighbour_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nanoflann.hpp>
#include <string>

#include "core/error.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

namespace {

// nanoflann 1.5 renamed SearchParams (Debian 12 ships 1.4.3).
#if NANOFLANN_VERSION >= 0x150
using KdSearchParams = nanoflann::SearchParameters;
#else
using KdSearchParams = nanoflann::SearchParams;
#endif

// Leaf size of the kd-tree: of 8, 16, 32, 64, 16 gave the fastest k = 51 queries (7.2 us per
// query at N = 1e6 in lattice order, against 7.6, 8.0, 9.8).
constexpr std::size_t kLeafSize = 16;

// High bit of a forward pair entry: "j's own search does not see i, add the reverse entry".
constexpr uint32_t kReverseFlag = 0x80000000u;

// Tree points as nanoflann's dataset adaptor. Holds the buffer, not the vector, so that moving a
// SphNeighbours keeps the tree valid.
struct PointCloud {
  const Vec3d* pts;
  std::size_t n;
  std::size_t kdtree_get_point_count() const { return n; }
  double kdtree_get_pt(uint32_t i, std::size_t dim) const {
    return dim == 0 ? pts[i].x : (dim == 1 ? pts[i].y : pts[i].z);
  }
  template <class BBox>
  bool kdtree_get_bbox(BBox&) const {
    return false;
  }
};

using KdTree = nanoflann::KDTreeSingleIndexAdaptor<
    nanoflann::L2_Simple_Adaptor<double, PointCloud, double, uint32_t>, PointCloud, 3, uint32_t>;

// Collects the indices of all points with squared distance < r2, without the (index, distance)
// pairs and the sort of nanoflann's RadiusResultSet.
class RadiusCollector {
 public:
  RadiusCollector(double r2, std::vector<uint32_t>& out) : r2_(r2), out_(out) {}
  std::size_t size() const { return out_.size(); }
  bool full() const { return true; }
  double worstDist() const { return r2_; }
  bool addPoint(double d2, uint32_t index) {
    if (d2 < r2_) out_.push_back(index);
    return true;
  }

 private:
  double r2_;
  std::vector<uint32_t>& out_;
};

// Sorts the list [b, e) whose first n_sorted entries are often sorted already (forward entries
// from candidates in store order) and the rest few (reverse entries): then insertion of the rest
// (up to 16) into the sorted prefix, far cheaper than std::sort; otherwise std::sort. Same result
// (the entries are distinct).
void sort_list(uint32_t* b, std::size_t n_sorted, uint32_t* e) {
  constexpr std::ptrdiff_t kMaxInserted = 16;
  if (e - (b + n_sorted) > kMaxInserted || !std::is_sorted(b, b + n_sorted)) {
    std::sort(b, e);
    return;
  }
  for (uint32_t* p = b + n_sorted; p < e; ++p) {
    const uint32_t v = *p;
    uint32_t* q = p;
    for (; q > b && *(q - 1) > v; --q) *q = *(q - 1);
    *q = v;
  }
}

double min_edge(const Box& box) {
  return std::min({box.size.x, box.size.y, box.size.z});
}

// (2h)^2 in double; exact, since 2h has a 24-bit mantissa.
double support2(float h) {
  const double t = 2.0 * double(h);
  return t * t;
}

}  // namespace

struct SphNeighbours::Tree {
  PointCloud cloud;
  KdTree index;
  Tree(const Vec3d* pts, std::size_t n)
      : cloud{pts, n}, index(3, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(kLeafSize)) {}
};

SphNeighbours::SphNeighbours() = default;
SphNeighbours::~SphNeighbours() = default;
SphNeighbours::SphNeighbours(SphNeighbours&&) noexcept = default;
SphNeighbours& SphNeighbours::operator=(SphNeighbours&&) noexcept = default;

void SphNeighbours::build_tree(const ParticleStore& store, const Box& box, double ghost_width) {
  n_gas_ = store.n_gas();
  if (n_gas_ >= std::size_t(kReverseFlag))
    throw Error("sph: " + std::to_string(n_gas_) +
                " gas particles exceed the 2^31 that the CPU neighbour lists index");
  periodic_ = box.periodic;
  offsets_.clear();
  drop_candidates();
  tree_.reset();

  points_.resize(n_gas_);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(n_gas_);
#pragma omp parallel for
  for (std::ptrdiff_t i = 0; i < n; ++i) points_[i] = wrap_position(store.pos[i], box);

  ghost_of_.clear();
  if (!periodic_) {
    ghost_width_ = std::numeric_limits<double>::infinity();
  } else {
    ghost_width_ = std::min(ghost_width, 0.5 * min_edge(box));
    const double w = ghost_width_;
    const double lo[3] = {box.lo.x, box.lo.y, box.lo.z};
    const double len[3] = {box.size.x, box.size.y, box.size.z};
    for (std::size_t i = 0; i < n_gas_; ++i) {
      const double x[3] = {points_[i].x, points_[i].y, points_[i].z};
      // Per axis, the image shifts that land within w of the box: +L near the low face, -L near
      // the high face (both when w reaches half the edge), 0 always.
      int shifts[3][3];
      int count[3];
      for (int a = 0; a < 3; ++a) {
        count[a] = 0;
        shifts[a][count[a]++] = 0;
        if (x[a] - lo[a] <= w) shifts[a][count[a]++] = 1;
        if (lo[a] + len[a] - x[a] <= w) shifts[a][count[a]++] = -1;
      }
      for (int ax = 0; ax < count[0]; ++ax)
        for (int ay = 0; ay < count[1]; ++ay)
          for (int az = 0; az < count[2]; ++az) {
            if (ax == 0 && ay == 0 && az == 0) continue;
            points_.push_back({x[0] + shifts[0][ax] * len[0], x[1] + shifts[1][ay] * len[1],
                               x[2] + shifts[2][az] * len[2]});
            ghost_of_.push_back(static_cast<uint32_t>(i));
          }
    }
    if (points_.size() >= std::size_t(std::numeric_limits<uint32_t>::max()))
      throw Error("sph: the periodic kd-tree would hold more than 2^32 points");
  }
  have_points_ = true;
}

void SphNeighbours::ensure_index() {
  if (!tree_ && have_points_) tree_ = std::make_unique<Tree>(points_.data(), points_.size());
}

void SphNeighbours::ensure_ghost_width(const ParticleStore& store, const Box& box, double width) {
  if (!box.periodic) return;
  const double half = 0.5 * min_edge(box);
  if (!(width < half)) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "sph: neighbour search radius %g reaches half the smallest periodic box edge "
                  "(%g): too few gas particles for sph.n_neighbours, or sph.h_min too large",
                  width, half);
    throw Error(msg);
  }
  if (!have_points_ || width > ghost_width_) build_tree(store, box, std::min(1.1 * width, half));
}

void SphNeighbours::set_candidates(std::size_t stride, std::vector<uint32_t> index,
                                   std::vector<float> covered_h) {
  cand_stride_ = stride;
  cand_ = std::move(index);
  cand_h_ = std::move(covered_h);
}

void SphNeighbours::take_candidate_buffers(std::vector<uint32_t>& index,
                                           std::vector<float>& covered_h) {
  drop_candidates();
  index.swap(cand_);
  covered_h.swap(cand_h_);
}

void SphNeighbours::drop_candidates() {
  cand_stride_ = 0;
}

std::size_t SphNeighbours::nearest(const Vec3d& x, std::size_t k, uint32_t* index,
                                   double* dist2) const {
  if (!tree_) throw Error("sph: kd-tree search before SphNeighbours::ensure_index");
  if (k == 0) return 0;
  nanoflann::KNNResultSet<double, uint32_t, std::size_t> result(k);
  result.init(index, dist2);
  const double q[3] = {x.x, x.y, x.z};
  tree_->index.findNeighbors(result, q, KdSearchParams());
  const std::size_t found = result.size();
  for (std::size_t m = 0; m < found; ++m)
    if (index[m] >= n_gas_) index[m] = ghost_of_[index[m] - n_gas_];
  return found;
}

void SphNeighbours::within(const Vec3d& x, double radius, std::vector<uint32_t>& out) const {
  out.clear();
  if (!tree_) throw Error("sph: kd-tree search before SphNeighbours::ensure_index");
  RadiusCollector result(radius * radius, out);
  const double q[3] = {x.x, x.y, x.z};
  tree_->index.findNeighbors(result, q, KdSearchParams());
  for (uint32_t& j : out)
    if (j >= n_gas_) j = ghost_of_[j - n_gas_];
}

void SphNeighbours::build_pairs(const ParticleStore& store, const Box& box,
                                const ActiveSet& active) {
  if (!have_points_ || store.n_gas() != n_gas_)
    throw Error("sph: neighbour pair lists requested before the kd-tree was built for the " +
                std::to_string(store.n_gas()) + " current gas particles");
  const std::size_t n = n_gas_;
  const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n);
  const bool subset = !active.all();
  std::vector<uint8_t> is_active;
  if (subset) {
    is_active.assign(n, 0);
    for (std::size_t k = 0; k < active.n_gas; ++k) is_active[active[k]] = 1;
  }
  float h_max = 0.f;
#pragma omp parallel for reduction(max : h_max)
  for (std::ptrdiff_t i = 0; i < sn; ++i)
    if (!subset || is_active[i]) h_max = std::max(h_max, store.h[i]);
  ensure_ghost_width(store, box, 2.0 * double(h_max) * (1.0 + kTreeRadiusSlack));

  // Pass 1: each i looks at its candidates within 2 h_i (cached ones, or from a tree search) and
  // keeps the j with r_ij < h_i + h_j ("forward" entries).
  // A pair with h_j > h_i and 2 h_i <= r_ij < h_i + h_j is seen by j only; it is flagged so that
  // pass 2 adds i to j's list. Blocks of i (dynamic schedule) keep the output order fixed.
  constexpr std::size_t kBlock = 256;
  const std::ptrdiff_t n_blocks = static_cast<std::ptrdiff_t>((n + kBlock - 1) / kBlock);
  forward_.resize(std::size_t(n_blocks));
  std::vector<std::vector<uint32_t>>& forward = forward_;
  n_forward_.assign(n, 0);
  n_reverse_.assign(n, 0);
  uint32_t* n_forward = n_forward_.data();
  uint32_t* n_reverse = n_reverse_.data();
  const bool cached = cand_stride_ > 0 && cand_h_.size() == n && cand_.size() == n * cand_stride_;
  // The index only where some active particle has no cached candidates.
  bool search = false;
#pragma omp parallel for reduction(|| : search)
  for (std::ptrdiff_t i = 0; i < sn; ++i)
    search = search || ((!subset || is_active[i]) && !(cached && store.h[i] == cand_h_[i]));
  if (search) ensure_index();
#pragma omp parallel
  {
    std::vector<uint32_t> searched;
#pragma omp for schedule(dynamic, 1)
    for (std::ptrdiff_t b = 0; b < n_blocks; ++b) {
      const std::size_t i_end = std::min(n, std::size_t(b + 1) * kBlock);
      std::vector<uint32_t>& out = forward[b];
      out.clear();
      for (std::size_t i = std::size_t(b) * kBlock; i < i_end; ++i) {
        if (subset && !is_active[i]) continue;
        const float h_i = store.h[i];
        const double s_i = support2(h_i);
        const uint32_t* cand = cand_.data() + i * cand_stride_;
        std::size_t n_cand = cand_stride_;
        if (!(cached && h_i == cand_h_[i])) {
          within(points_[i], 2.0 * double(h_i) * (1.0 + kTreeRadiusSlack), searched);
          cand = searched.data();
          n_cand = searched.size();
        }
        uint32_t count = 0;
        for (std::size_t m = 0; m < n_cand; ++m) {
          const uint32_t j = cand[m];
          if (j == i) continue;
          const double r2 = norm2(min_image(store.pos[i] - store.pos[j], box));
          const double h_sum = double(h_i) + double(store.h[j]);
          if (!(r2 < h_sum * h_sum && r2 < s_i)) continue;
          // The reverse entry is needed only where j gets a list.
          const bool reverse = !(r2 < support2(store.h[j])) && (!subset || is_active[j]);
          out.push_back(reverse ? (j | kReverseFlag) : j);
          ++count;
          if (reverse) {
#pragma omp atomic
            ++n_reverse[j];
          }
        }
        n_forward[i] = count;
      }
    }
  }

  drop_candidates();

  // Active i and inactive j with 2 h_i <= r_ij < h_i + h_j: only j's search could see them.
  std::vector<std::pair<uint32_t, uint32_t>> from_inactive;
  if (subset) from_inactive = inactive_reverse_pairs(store, box, is_active);
  std::vector<uint32_t> n_inactive(subset ? n : 0, 0);
  for (const auto& e : from_inactive) ++n_inactive[e.first];

  offsets_.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    offsets_[i + 1] =
        offsets_[i] + n_forward[i] + n_reverse[i] + (subset ? n_inactive[i] : uint32_t(0));
  neighbours_.resize(offsets_[n]);

  // Pass 2: copy forward entries, scatter reverse ones, then sort every list so that the sums
  // over it do not depend on the thread schedule.
  reverse_fill_.assign(n, 0);
  uint32_t* reverse_fill = reverse_fill_.data();
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t b = 0; b < n_blocks; ++b) {
    const std::size_t i_end = std::min(n, std::size_t(b + 1) * kBlock);
    std::size_t k = 0;
    for (std::size_t i = std::size_t(b) * kBlock; i < i_end; ++i) {
      uint32_t* dst = neighbours_.data() + offsets_[i];
      for (uint32_t m = 0; m < n_forward[i]; ++m) {
        const uint32_t e = forward[b][k++];
        const uint32_t j = e & ~kReverseFlag;
        dst[m] = j;
        if (e & kReverseFlag) {
          uint32_t slot;
#pragma omp atomic capture
          slot = reverse_fill[j]++;
          neighbours_[offsets_[j] + n_forward[j] + slot] = static_cast<uint32_t>(i);
        }
      }
    }
  }
  for (const auto& e : from_inactive)
    neighbours_[offsets_[e.first] + n_forward[e.first] + reverse_fill[e.first]++] = e.second;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t i = 0; i < sn; ++i)
    sort_list(neighbours_.data() + offsets_[i], n_forward[i], neighbours_.data() + offsets_[i + 1]);
}

std::vector<std::pair<uint32_t, uint32_t>> SphNeighbours::inactive_reverse_pairs(
    const ParticleStore& store, const Box& box, const std::vector<uint8_t>& is_active) const {
  const std::size_t n = n_gas_;
  std::vector<Vec3d> pts;
  std::vector<uint32_t> index;
  float h_min_act = std::numeric_limits<float>::max(), h_max_act = 0.f;
  for (std::size_t i = 0; i < n; ++i)
    if (is_active[i]) {
      pts.push_back(points_[i]);
      index.push_back(uint32_t(i));
      h_min_act = std::min(h_min_act, store.h[i]);
      h_max_act = std::max(h_max_act, store.h[i]);
    }
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  if (pts.empty() || pts.size() == n) return pairs;
  const Tree active_tree(pts.data(), pts.size());
  const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n);
  const double lo[3] = {box.lo.x, box.lo.y, box.lo.z};
  const double len[3] = {box.size.x, box.size.y, box.size.z};
  const double half = 0.5 * min_edge(box);
  bool too_wide = false;
#pragma omp parallel
  {
    std::vector<std::pair<uint32_t, uint32_t>> mine;
    std::vector<uint32_t> found;
#pragma omp for schedule(dynamic, 256) reduction(|| : too_wide)
    for (std::ptrdiff_t j = 0; j < sn; ++j) {
      const float h_j = store.h[j];
      // A reverse pair needs h_j > h_i: none for h_j <= the smallest active h.
      if (is_active[j] || !(h_j > h_min_act)) continue;
      // r_ij < h_i + h_j with h_i < h_j: r_ij < 2 h_j, which bounds the search far tighter than
      // h_j + max h_i where h spans decades (a clustered cloud, or the ghosts of an MPI halo).
      const double radius =
          std::min(double(h_j) + double(h_max_act), 2.0 * double(h_j)) * (1.0 + kTreeRadiusSlack);
      if (box.periodic && !(radius < half)) {
        too_wide = true;
        continue;
      }
      // The query point and, in a periodic box, its images within `radius` of the box.
      const Vec3d x = points_[j];
      const double xa[3] = {x.x, x.y, x.z};
      int shifts[3][3], count[3];
      for (int ax = 0; ax < 3; ++ax) {
        count[ax] = 0;
        shifts[ax][count[ax]++] = 0;
        if (box.periodic && xa[ax] - lo[ax] <= radius) shifts[ax][count[ax]++] = 1;
        if (box.periodic && lo[ax] + len[ax] - xa[ax] <= radius) shifts[ax][count[ax]++] = -1;
      }
      for (int sx = 0; sx < count[0]; ++sx)
        for (int sy = 0; sy < count[1]; ++sy)
          for (int sz = 0; sz < count[2]; ++sz) {
            const double q[3] = {xa[0] + shifts[0][sx] * len[0], xa[1] + shifts[1][sy] * len[1],
                                 xa[2] + shifts[2][sz] * len[2]};
            found.clear();
            RadiusCollector result(radius * radius, found);
            active_tree.index.findNeighbors(result, q, KdSearchParams());
            for (const uint32_t m : found) {
              const uint32_t i = index[m];
              const double r2 = norm2(min_image(store.pos[i] - store.pos[j], box));
              const double h_sum = double(store.h[i]) + double(h_j);
              if (r2 < h_sum * h_sum && !(r2 < support2(store.h[i])))
                mine.push_back({i, uint32_t(j)});
            }
          }
    }
#pragma omp critical
    pairs.insert(pairs.end(), mine.begin(), mine.end());
  }
  if (too_wide)
    throw Error(
        "sph: a reverse neighbour search radius reaches half the smallest periodic box edge: "
        "too few gas particles for sph.n_neighbours");
  return pairs;
}

}  // namespace mpsph
