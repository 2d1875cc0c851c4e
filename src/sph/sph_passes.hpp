// The SPH passes on a host store over a list of active gas particles, on the CPU (the OpenMP
// drivers) or on the GPU (GpuSph on a device copy: the pass uploads the fields it reads and
// downloads those it writes). For a caller that keeps its particles on the host and changes the
// gas between passes - the MPI ranks, whose halos insert remote particles into the store
// (parallel/distributed_sph.hpp). Both give the h, pair sets and sums of their backend's
// single-process stages (smoothing_length.hpp, density.hpp, force.hpp, sph_gpu.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

class SphNeighbours;

class SphPasses {
 public:
  virtual ~SphPasses() = default;
  virtual const char* name() const = 0;
  // Whether each particle's pair sums run in store-index order of its neighbours (the CPU's): a
  // caller that orders the gas as one process would then gets one process's results bit for
  // bit. The GPU's sums follow its leaves instead; the store order only needs to be compact.
  virtual bool sums_in_store_order() const = 0;
  // `active`: sorted store indices of gas particles. Neighbours are all gas [0, n_gas) as they are.
  // h and nngb of the active gas (compute_smoothing_lengths), and next[i] = d_{N+1} of each
  // active i (next is resized to n_gas; 0 for the others).
  virtual void smoothing_lengths(ParticleStore& s, const Box& box, const SphParams& p,
                                 const std::vector<uint32_t>& active,
                                 std::vector<double>& next) = 0;
  // rho, divv, curlv, then pressure, csound, balsara (and u of a non-adiabatic EOS) of the active
  // gas (compute_density, prepare_force); keeps the pair structure for forces().
  virtual void density(ParticleStore& s, const Box& box, const SphParams& p, const EosParams& eos,
                       const std::vector<uint32_t>& active) = 0;
  // acc (hydrodynamic), dudt, vsig of the active gas (compute_sph_forces) over the pairs of the
  // last density(), with the gas' rho, pressure, csound and balsara as the store holds them now
  // (the caller may have changed them for the inactive gas since).
  virtual void forces(ParticleStore& s, const Box& box, const SphParams& p,
                      const std::vector<uint32_t>& active) = 0;
  // The pair lists of the last density() on the host (SphNeighbours::build_pairs over its active
  // gas: complete for those), valid until the store changes; null when the passes keep none there
  // (the GPU's).
  virtual const SphNeighbours* pair_lists() const { return nullptr; }
  // The candidates of the last smoothing_lengths() (SphNeighbours::candidate_stride and
  // candidates, over the gas of the store as it was then), or null when the passes keep none
  // (the GPU's).
  virtual const SphNeighbours* h_search() const { return nullptr; }
  // Candidates for the pair search of the next density() (SphNeighbours::set_candidates: `stride`
  // gas indices per gas particle of the store as it will be then, and the h each covers; 0 for
  // none): the CPU's build_pairs filters them instead of searching its kd-tree, as one process's
  // does with those of its smoothing-length stage. Ignored by passes that keep no candidates.
  virtual void give_candidates(std::size_t stride, std::vector<uint32_t> index,
                               std::vector<float> covered_h) {
    (void)stride, (void)index, (void)covered_h;
  }
};

std::unique_ptr<SphPasses> make_cpu_sph_passes();
// Defined in CUDA builds; a CPU-only build throws mpsph::Error saying so. Uses the current CUDA
// device.
std::unique_ptr<SphPasses> make_gpu_sph_passes();

}  // namespace mpsph
