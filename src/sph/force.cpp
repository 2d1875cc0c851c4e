#include "sph/force.hpp"

#include <cstddef>
#include <string>

#include "core/error.hpp"
#include "sph/eos_kern.hpp"
#include "sph/force_kern.hpp"

namespace mpsph {

void prepare_force(ParticleStore& store, const EosParams& eos, const SphParams& params,
                   const ActiveSet& active) {
  const ParticleView v = store.view();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
  const float eps_prime = float(params.balsara_eps);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const EosState e = apply_eos(eos, v, i);
    v.balsara[i] =
        params.balsara ? balsara_factor(v.divv[i], v.curlv[i], e.csound, v.h[i], eps_prime) : 1.f;
  }
}

void compute_sph_forces(ParticleStore& store, const Box& box, const SphParams& params,
                        SphNeighbours& nb, const ActiveSet& active) {
  const ParticleView v = store.view();
  if (!nb.has_pairs() || nb.n_gas() != v.n_gas)
    throw Error("sph: forces requested without the pair lists of this step for " +
                std::to_string(v.n_gas) + " gas particles (compute_density builds them)");
  const PairForceParams vp = pair_force_params(params);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const ForceParticle pi = force_particle(v, i);
    ForceSums sums;
    for (const uint32_t* j = nb.pairs_begin(i); j != nb.pairs_end(i); ++j)
      force_accumulate(sums,
                       force_pair(pair_separation(v, i, *j, box), pi, force_particle(v, *j), vp),
                       v.mass[*j]);
    v.acc[i] = sums.acc;
    v.dudt[i] = sums.dudt;
    v.vsig[i] = signal_velocity(pi.csound, sums.mu_max, vp);
  }
}

}  // namespace mpsph
