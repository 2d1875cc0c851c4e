#include "core/diagnostics.hpp"

namespace mpsph {

Conserved measure_conserved(const ParticleStore& s, bool with_potential) {
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  const auto n_gas = static_cast<std::ptrdiff_t>(s.n_gas());
  double ek = 0, eu = 0, ew = 0, m = 0;
  double px = 0, py = 0, pz = 0, lx = 0, ly = 0, lz = 0;
#pragma omp parallel for reduction(+ : ek, eu, ew, m, px, py, pz, lx, ly, lz) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double mi = s.mass[i];
    const Vec3d& v = s.vel[i];
    const Vec3d L = mi * cross(s.pos[i], v);
    ek += 0.5 * mi * norm2(v);
    if (i < n_gas) eu += mi * s.u[i];
    if (with_potential) ew += 0.5 * mi * s.pot[i];
    m += mi;
    px += mi * v.x, py += mi * v.y, pz += mi * v.z;
    lx += L.x, ly += L.y, lz += L.z;
  }
  Conserved c;
  c.kinetic = ek;
  c.thermal = eu;
  c.potential = ew;
  c.mass = m;
  c.momentum = {px, py, pz};
  c.angular_momentum = {lx, ly, lz};
  return c;
}

}  // namespace mpsph
