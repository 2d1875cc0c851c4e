// The force stages of the CPU backend (OpenMP): per-particle preparation (EOS, Balsara switch)
// and the SPH accelerations and heating from the pair functions of force_kern.hpp.
#pragma once

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/eos_params.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

// Sets store.pressure, store.csound and store.balsara (f_i; 1 when sph.balsara is off) for gas
// [0, n_gas) (the active ones of `active`) from rho, u, div v, curl v and h.
void prepare_force(ParticleStore& store, const EosParams& eos, const SphParams& params,
                   const ActiveSet& active = {});

// OVERWRITES store.acc (hydrodynamic acceleration only; the driver adds gravity afterwards),
// store.dudt and store.vsig for gas [0, n_gas) (the active ones of `active`), over the pair lists
// that compute_density built in `nb` this step (mpsph::Error if there are none).
void compute_sph_forces(ParticleStore& store, const Box& box, const SphParams& params,
                        SphNeighbours& nb, const ActiveSet& active = {});

}  // namespace mpsph
