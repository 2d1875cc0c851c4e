#include "setups/evrard.hpp"

#include <cmath>

#include "core/constants.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

ParticleStore make_evrard(const EvrardParams& p, std::size_t part, std::size_t parts) {
  // Lattice spacing for ~n_target points in the unit sphere: n = (4 pi/3) / d^3.
  const double d = std::cbrt(4.0 * cgs::kPi / (3.0 * double(p.n_target)));
  const std::size_t n_all = lattice_in_sphere_count(1.0, d);
  const std::size_t first = n_all * part / parts, end = n_all * (part + 1) / parts;
  const std::vector<Vec3d> unit = lattice_in_sphere_range(1.0, d, first, end - first);
  const std::size_t n = unit.size();

  ParticleStore s;
  s.resize(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const double q = norm(unit[i]);
    // r = R q^(3/2): uniform lattice (M(<q) ~ q^3) becomes M(<r) ~ r^2, i.e. rho ~ 1/r.
    const double stretch = q > 0 ? p.radius * std::sqrt(q) : 0.0;
    s.pos[i] = stretch * unit[i];
    s.vel[i] = {0, 0, 0};
    s.mass[i] = p.mass / double(n_all);
    s.id[i] = first + i + 1;
    s.type[i] = kGas;
    s.u[i] = p.u0;
    s.h[i] = 0.0f;
  }
  return s;
}

}  // namespace mpsph
