#include "sph/force.hpp"

#include <cstddef>
#include <string>

#include "core/error.hpp"
#include "sph/eos_kern.hpp"
#include "sph/force_kern.hpp"

namespace mpsph {

void prepare_force(ParticleStore& store, const EosParams& eos, const SphParams& params) {
  const ParticleView v = store.view();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(v.n_gas);
  const float eps_prime = float(params.balsara_eps);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const EosState e = eos_state(eos, v.rho[i], v.u[i]);
    v.pressure[i] = e.pressure;
    v.csound[i] = e.csound;
    v.balsara[i] =
        params.balsara ? balsara_factor(v.divv[i], v.curlv[i], e.csound, v.h[i], eps_prime) : 1.f;
  }
}

void compute_sph_forces(ParticleStore& store, const Box& box, const SphParams& params,
                        SphNeighbours& nb) {
  const ParticleView v = store.view();
  if (!nb.has_pairs() || nb.n_gas() != v.n_gas)
    throw Error("sph: forces requested without the pair lists of this step for " +
                std::to_string(v.n_gas) + " gas particles (compute_density builds them)");
  const PairForceParams vp = pair_force_params(params);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(v.n_gas);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
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
