#include "setups/sod.hpp"

#include <cmath>

#include "core/error.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

SodSetup make_sod(const SodParams& p) {
  const double ratio = std::cbrt(p.rho_left / p.rho_right);
  const int k = int(std::lround(ratio));
  if (k < 1 || std::fabs(ratio - k) > 1e-9)
    throw Error("sod: (rho_left/rho_right)^(1/3) = " + std::to_string(ratio) +
                " must be an integer so that both lattices tile the box");
  if (p.nx_left % k != 0 || p.ny_left % k != 0)
    throw Error("sod: nx_left and ny_left must be divisible by " + std::to_string(k));
  const double dl = 1.0 / p.nx_left;  // left spacing; the left half is [0, 1)
  const double dr = k * dl;
  const double ly = p.ny_left * dl;
  const std::vector<Vec3d> left = cubic_lattice({0, 0, 0}, dl, p.nx_left, p.ny_left, p.ny_left);
  const std::vector<Vec3d> right =
      cubic_lattice({1.0, 0, 0}, dr, p.nx_left / k, p.ny_left / k, p.ny_left / k);

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
