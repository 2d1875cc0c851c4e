#include "sph/density.hpp"

#include <cstddef>

#include "sph/density_kern.hpp"

namespace mpsph {

void compute_density(ParticleStore& store, const Box& box, const SphParams& /*params*/,
                     SphNeighbours& nb, const ActiveSet& active) {
  nb.build_pairs(store, box, active);
  const ParticleView v = store.view();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const float h_i = v.h[i];
    DensitySums sums;
    density_self(sums, float(v.mass[i]), h_i);
    for (const uint32_t* j = nb.pairs_begin(i); j != nb.pairs_end(i); ++j)
      density_pair(sums, pair_separation(v, i, *j, box), float(v.mass[*j]), h_i, v.h[*j]);
    const DensityResult r = density_end(sums);
    v.rho[i] = r.rho;
    v.divv[i] = r.divv;
    v.curlv[i] = r.curlv;
  }
}

}  // namespace mpsph
