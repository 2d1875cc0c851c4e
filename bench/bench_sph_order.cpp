// How the order of the gas shapes the GPU SPH passes' leaves, measured on the CPU (docs/
// PERFORMANCE.md, "The order of the SPH passes' leaves"). The disk galaxy's gas (setups/
// isolated_disk.yaml with N_gas gas particles and 2 100 of the other types, at t = 0) gets its
// smoothing lengths from the CPU SPH, then is ordered by Morton key (the order stage's) and by
// Hilbert key (core/hilbert.hpp) in four key cubes: the gas's bounding cube, the cube of all the
// setup's particles (the run's, which one GPU and the ranks order in), a cube of that edge
// centred on the galaxy, and the same 0.37 length units off (bench_resident_sph_gpu's frames).
// For the GPU passes' leaves of 32 consecutive particles it prints:
// - walk segments per leaf: a warp's lanes are cut where two consecutive particles lie more than
//   2 max(lim_i, lim_{i-1}) apart, lim = 2 h (sph/neighbour_tree_gpu.cuh, for_each_segment), and
//   each segment walks the tree on its own;
// - the share of leaves with more than one segment;
// - the mean leaf extent (largest edge of its particles' bounding box) over its largest h.
//   bench_sph_order [N_gas ...]      (default 1e6; run from the repository root)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "bench_sets.hpp"
#include "core/hilbert.hpp"
#include "core/morton.hpp"
#include "core/particle_order.hpp"
#include "core/wall_clock.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"

using namespace mpsph;

namespace {

constexpr std::size_t kLeaf = 32;  // gpu::kLeafSize

struct Leaves {
  double segments = 0.0, split = 0.0, extent = 0.0;
};

// The leaves of the gas in the order `o`.
Leaves leaves_of(const ParticleStore& g, const std::vector<std::size_t>& o) {
  const std::size_t n_leaves = o.size() / kLeaf;
  double segments = 0.0, split = 0.0, extent = 0.0;
#pragma omp parallel for reduction(+ : segments, split, extent)
  for (std::ptrdiff_t l = 0; l < std::ptrdiff_t(n_leaves); ++l) {
    int seg = 0;
    Vec3d lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    double h_max = 0.0;
    for (std::size_t k = 0; k < kLeaf; ++k) {
      const std::size_t i = o[std::size_t(l) * kLeaf + k];
      const Vec3d x = g.pos[i];
      lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
      hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
      h_max = std::max(h_max, double(g.h[i]));
      if (k == 0) {
        seg = 1;
        continue;
      }
      const std::size_t j = o[std::size_t(l) * kLeaf + k - 1];
      const double cut = 2.0 * std::max(2.0 * double(g.h[i]), 2.0 * double(g.h[j]));
      const Vec3d d = x - g.pos[j];
      seg += d.x * d.x + d.y * d.y + d.z * d.z > cut * cut ? 1 : 0;
    }
    segments += seg;
    split += seg > 1 ? 1.0 : 0.0;
    extent += std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}) / h_max;
  }
  const double n = double(std::max<std::size_t>(n_leaves, 1));
  return {segments / n, split / n, extent / n};
}

template <class Key>
std::vector<std::size_t> order_by(const ParticleStore& g, const KeyCube& c, Key key) {
  std::vector<uint64_t> k(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) k[i] = key(g.pos[i], c.lo, c.edge);
  std::vector<std::size_t> o(g.size());
  std::iota(o.begin(), o.end(), std::size_t(0));
  std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return k[a] < k[b]; });
  return o;
}

void run(long n_gas) {
  bench::DiskGas g = bench::disk_gas(n_gas);
  ParticleStore& gas = g.gas;
  const double t0 = wall_seconds();
  // The run's order stage first, as in a run: the CPU stage searches in groups of consecutive
  // particles, and the set-up's order is no spatial one (unordered: 30 s at 2e5 gas).
  order_particles(gas, g.box);
  SphNeighbours nb;
  compute_smoothing_lengths(gas, g.box, g.sph, nb);
  std::printf("disk gas %zu (smoothing lengths in %.1f s)\n", gas.size(), wall_seconds() - t0);

  const bench::DiskFrames c = bench::disk_frames(g.gas, g.others);
  const struct {
    const char* name;
    KeyCube cube;
  } frames[] = {{"gas cube", c.gas},
                {"run's cube", c.run},
                {"centred", c.centred},
                {"off-centre", c.off_centre}};
  std::printf("%-12s %-8s | segments per leaf | leaves split | leaf extent / h_max\n", "frame",
              "curve");
  for (const auto& f : frames) {
    const Leaves m =
        leaves_of(gas, order_by(gas, f.cube, [](const Vec3d& x, const Vec3d& lo, double e) {
                    return morton_key(x, lo, e);
                  }));
    const Leaves h =
        leaves_of(gas, order_by(gas, f.cube, [](const Vec3d& x, const Vec3d& lo, double e) {
                    return hilbert_key(x, lo, e);
                  }));
    std::printf("%-12s %-8s | %17.3f | %12.3f | %19.2f\n", f.name, "Morton", m.segments, m.split,
                m.extent);
    std::printf("%-12s %-8s | %17.3f | %12.3f | %19.2f\n", f.name, "Hilbert", h.segments, h.split,
                h.extent);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::atol(argv[a]));
  if (sizes.empty()) sizes.push_back(1000000);
  for (const long n : sizes) {
    if (n < 64) {
      std::fprintf(stderr, "bench_sph_order: N_gas must be at least 64\n");
      return 2;
    }
    run(n);
  }
  return 0;
}
