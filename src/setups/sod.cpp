#include "setups/sod.hpp"

#include <cmath>

#include "core/error.hpp"
#include "setups/glass.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

namespace {

// `tiles` copies along x of a glass cube of side `side` holding m^3 particles, from x = x0.
std::vector<Vec3d> tile_glass(int m, uint64_t seed, double side, int tiles, double x0) {
  GlassParams gp;
  gp.n = m * m * m;
  gp.seed = seed;
  const Glass g = make_glass(gp);
  std::vector<Vec3d> out;
  out.reserve(g.pos.size() * std::size_t(tiles));
  for (int t = 0; t < tiles; ++t)
    for (const Vec3d& q : g.pos)
      out.push_back(Vec3d{x0 + (t + q.x) * side, q.y * side, q.z * side});
  return out;
}

}  // namespace

SodSetup make_sod(const SodParams& p) {
  const double ratio = std::cbrt(p.rho_left / p.rho_right);
  const int k = int(std::lround(ratio));
  if (k < 1 || std::fabs(ratio - k) > 1e-9)
    throw Error("sod: (rho_left/rho_right)^(1/3) = " + std::to_string(ratio) +
                " must be an integer so that both lattices tile the box");
  if (p.nx_left % k != 0 || p.ny_left % k != 0)
    throw Error("sod: nx_left and ny_left must be divisible by " + std::to_string(k));
  const double dl = 1.0 / p.nx_left;  // left (mean) spacing; the left half is [0, 1)
  const double ly = p.ny_left * dl;
  std::vector<Vec3d> left, right;
  if (p.glass) {
    if (p.nx_left % p.ny_left != 0)
      throw Error(
          "sod: with glass initial conditions nx_left must be a multiple of ny_left (the "
          "halves are tiled with glass cubes of side ny_left/nx_left)");
    left = tile_glass(p.ny_left, p.seed, ly, p.nx_left / p.ny_left, 0.0);
    right = tile_glass(p.ny_left / k, p.seed + 1, ly, p.nx_left / p.ny_left, 1.0);
  } else {
    left = cubic_lattice({0, 0, 0}, dl, p.nx_left, p.ny_left, p.ny_left);
    right = cubic_lattice({1.0, 0, 0}, k * dl, p.nx_left / k, p.ny_left / k, p.ny_left / k);
  }

  SodSetup out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {2.0, ly, ly};
  ParticleStore& s = out.particles;
  const std::size_t n = left.size() + right.size();
  s.resize(n);
  const double m = p.rho_left * (1.0 * ly * ly) / double(left.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_left = i < left.size();
    s.pos[i] = is_left ? left[i] : right[i - left.size()];
    s.vel[i] = {0, 0, 0};
    s.mass[i] = m;
    s.id[i] = i + 1;
    s.type[i] = kGas;
    const double rho = is_left ? p.rho_left : p.rho_right;
    const double pr = is_left ? p.p_left : p.p_right;
    s.u[i] = pr / ((p.gamma - 1.0) * rho);
    s.h[i] = 0.0f;
  }
  return out;
}

}  // namespace mpsph
