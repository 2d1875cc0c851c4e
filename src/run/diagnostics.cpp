#include "run/diagnostics.hpp"

#include "run/diagnostics_kern.hpp"

namespace mpsph {

Conserved measure_conserved(const ParticleStore& s, bool with_potential) {
  const ParticleView v = const_cast<ParticleStore&>(s).view();  // read-only use
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  ConservedSums total = zero_conserved_sums();
#pragma omp parallel
  {
    ConservedSums mine = zero_conserved_sums();
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = 0; i < n; ++i) add_particle(mine, v, std::size_t(i), with_potential);
#pragma omp critical(mpsph_conserved)
    add_sums(total, mine);
  }
  Conserved c;
  c.kinetic = total.kinetic;
  c.thermal = total.thermal;
  c.potential = total.potential;
  c.mass = total.mass;
  c.momentum = {total.px, total.py, total.pz};
  c.angular_momentum = {total.lx, total.ly, total.lz};
  return c;
}

}  // namespace mpsph
