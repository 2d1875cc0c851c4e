#include "setups/ball_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "setups/glass.hpp"
#include "setups/sphere_sampling.hpp"

namespace mpsph {

namespace {

std::vector<Vec3d> glass_ball(const BallParams& p) {
  GlassParams gp;
  gp.n = p.glass_tile_n_side * p.glass_tile_n_side * p.glass_tile_n_side;
  gp.seed = p.seed;
  gp.target_scatter = p.glass_scatter;
  const Glass g = make_glass(gp);
  // Tile side for the number density n / (4 pi/3) of the ball.
  const double density = double(p.n) / (4.0 * cgs::kPi / 3.0);
  const double side = std::cbrt(double(gp.n) / density);
  // Tiles cover the ball of radius 1.1 (1.33 n points, enough for the n + 1 nearest): the n-th
  // nearest lies near radius 1 up to the glass scatter, far less than 10%.
  const double reach = 1.1;
  const Vec3d offset{random_uniform(0, p.seed, kStreamSetup, 0),
                     random_uniform(0, p.seed, kStreamSetup, 1),
                     random_uniform(0, p.seed, kStreamSetup, 2)};
  const int k = int(std::ceil(reach / side)) + 1;
  std::vector<Vec3d> cand;
  for (int a = -k; a < k; ++a)
    for (int b = -k; b < k; ++b)
      for (int c = -k; c < k; ++c)
        for (const Vec3d& q : g.pos) {
          const Vec3d x{(a + q.x - offset.x) * side, (b + q.y - offset.y) * side,
                        (c + q.z - offset.z) * side};
          if (norm2(x) < reach * reach) cand.push_back(x);
        }
  if (cand.size() < p.n + 1)
    throw Error("unit_ball: the tiled glass holds " + std::to_string(cand.size()) +
                " points within radius 1.1, fewer than n + 1 = " + std::to_string(p.n + 1));
  std::vector<double> r(cand.size());
  for (std::size_t i = 0; i < cand.size(); ++i) r[i] = norm(cand[i]);
  std::vector<std::size_t> order(cand.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  // Ties (equal radii) are broken by index so the selection does not depend on the sort.
  std::sort(order.begin(), order.end(),
            [&r](std::size_t x, std::size_t y) { return r[x] < r[y] || (r[x] == r[y] && x < y); });
  const double edge = 0.5 * (r[order[p.n - 1]] + r[order[p.n]]);
  std::vector<Vec3d> out(p.n);
  for (std::size_t i = 0; i < p.n; ++i) out[i] = (1.0 / edge) * cand[order[i]];
  return out;
}

std::vector<Vec3d> random_ball(const BallParams& p) {
  std::vector<Vec3d> out(p.n);
  for (std::size_t i = 0; i < p.n; ++i) {
    // M(<q) ~ q^3 for a uniform ball: q = U^(1/3).
    const double q = std::cbrt(random_uniform(i, p.seed, kStreamSetup, 0));
    out[i] = q * isotropic_direction(i, p.seed, 1);
  }
  return out;
}

}  // namespace

BallSampling ball_sampling_from_name(const std::string& name) {
  if (name == "glass") return BallSampling::Glass;
  if (name == "random") return BallSampling::Random;
  throw Error("unknown ball sampling '" + name + "': use glass or random");
}

std::vector<Vec3d> unit_ball(const BallParams& p) {
  if (p.n < 1) throw Error("unit_ball: at least one point is needed");
  std::vector<Vec3d> x = p.sampling == BallSampling::Glass ? glass_ball(p) : random_ball(p);
  // Centre of mass at the origin (equal masses: the mean position), summed in index order.
  Vec3d mean{0, 0, 0};
  for (const Vec3d& q : x) mean += q;
  mean = (1.0 / double(x.size())) * mean;
  for (Vec3d& q : x) q -= mean;
  return x;
}

}  // namespace mpsph
