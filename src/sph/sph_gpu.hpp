// CUDA driver of the SPH stages (host API; defined in src/sph/*_gpu.cu, CUDA builds only). Every
// stage works on the device particle arrays (DeviceParticles::view()) and calls the same
// MPSPH_HD functions as the OpenMP drivers (smoothing_length_kern.hpp, density_kern.hpp,
// eos_kern.hpp, force_kern.hpp), so both backends compute the same h, rho, forces and heating.
//
// Neighbour search (docs/PERFORMANCE.md, section "GPU SPH"): gas particles, in the order of the
// order stage (Hilbert keys), form leaves of 32 consecutive particles; an implicit binary tree over
// the leaves holds their bounding boxes (double, periodic minimum image) and h_max. One warp serves
// one leaf: it walks the tree with the box of each segment of the leaf (runs of lanes cut where
// the curve jumps), and for every leaf that can hold a neighbour it stages that leaf's particles
// - only its groups of 8 (boxes kept per group) that some lane can reach - in shared memory,
// where each lane tests the groups it can reach against its own particle - a float pre-filter with
// a proven error bound, then the same double distance as the CPU driver, rounded exactly as there
// (no fused multiply-add), so pair sets and h agree with the CPU backend bit for bit.
//   h:        exact N_B nearest neighbours (counts at 8 radii with the squared distances kept,
//             then the N_B-th/(N_B+1)-th distances selected).
//   pairs:    r_ij < h_i + h_j; the walk opens a node when its box lies within h_max(segment) +
//             h_max(node) of the segment's box, so no pair is missed.
// Stages are asynchronous on the default stream and never synchronise with the host; errors
// found by kernels (a neighbour search reaching half a periodic box) are raised as bits of a
// device word that the step's one synchronisation reads (throw_if_errors / device_error_flags).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/device_scratch.hpp"
#include "core/particle_store.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

namespace gpu {
struct TreeView;
}

// How the density and force passes find the candidate leaves of each leaf.
enum class GpuNeighbourMode {
  Walk,       // walk the tree again in every pass
  LeafLists,  // density walks once and stores each leaf's candidate leaves; forces reuse them
};

// Bits of the device error word.
enum GpuSphErrorBits : uint32_t {
  kGpuSphNeighboursBeyondHalfBox = 1u,  // the (N_B+1)-th neighbour lies beyond half a periodic box
  kGpuSphSearchBeyondHalfBox = 2u,      // 2h reaches half the smallest periodic box edge
  kGpuSphNotConverged = 4u,             // a smoothing length search did not converge
};

// Squared distances one lane keeps in the smoothing-length search (N_B + 1 <= this).
constexpr int kGpuSphGatherCapacity = 128;

// Pair lists that density() records for the active gas of a block substep (an active list, not the
// all-active substeps that end a segment; at most kGpuPairListCapacity * 4 = 512 bytes per active
// gas particle of the largest such substep): for the k-th active gas particle i, count[k] gas
// indices j != i with r_ij < h_i + h_j at stride `cap` - the pair set of the substep's density and
// force passes, as the CPU driver's pair lists. count[k] > cap: not stored (a walk serves that
// particle; none of 1.7e8 listed particles of an Evrard run at N = 1e6 had more than 128 pairs).
constexpr int kGpuPairListCapacity = 128;
struct GpuPairLists {
  const uint32_t* j = nullptr;  // nullptr: no lists for this active set
  const int32_t* count = nullptr;
  int cap = 0;
};

// One-line description of the error bits (empty when none is set).
std::string describe_gpu_sph_errors(uint32_t flags, int n_neighbours);

// Particles per warp (ActiveSet::lanes) of the GPU passes over `n_active_gas` of `n_gas` gas
// particles: 32 when the set fills the card, halved while the pass would have fewer than
// kGpuTaskWarps warps, down to 1 (never more warps than the gas has leaves of 32: the leaf lists
// are kept per warp). Measured on the Evrard collapse, N = 1e6, block steps to t = 0.8 (H100,
// 2026-11-25): 31.06 s with 32 per warp always, 29.42 s with a target of 8192 warps, 27.98 s
// with 2048 (docs/PERFORMANCE.md).
constexpr int64_t kGpuTaskWarps = 2048;
int gpu_task_lanes(std::size_t n_gas, std::size_t n_active_gas);

class GpuSph {
 public:
  GpuSph();
  ~GpuSph();
  GpuSph(const GpuSph&) = delete;
  GpuSph& operator=(const GpuSph&) = delete;

  void set_mode(GpuNeighbourMode mode);
  GpuNeighbourMode mode() const;
  // Scan staged leaves only over the groups of 8 that a lane can reach (default on; off only to
  // measure the difference).
  void set_sub_boxes(bool on);

  // Every stage works on the active gas of `a` (default: all gas); neighbours are all gas, as they
  // are (the inactive ones predicted). The leaf kernels run one warp per leaf as before; a leaf
  // without an active particle returns at once, and its inactive lanes only help stage.
  //
  // Sets h and nngb of gas [0, n_gas) as compute_smoothing_lengths does (exact N_B rule, ties,
  // h_min floor). Throws mpsph::Error at once when there are fewer than N_B + 1 gas particles.
  // `next_distance` (device array of n_gas, may be null): d_{N+1}, the distance of the
  // (N_B+1)-th nearest gas particle, of every active particle (as compute_smoothing_lengths'
  // next_distance; the MPI halos check with it that h is exact).
  void smoothing_lengths(const ParticleView& d, const Box& box, const SphParams& p,
                         const ActiveSet& a = ActiveSet{}, double* next_distance = nullptr);
  // Sets rho, divv, curlv of gas from the current positions, velocities and h (builds the
  // neighbour structure that forces() uses).
  void density(const ParticleView& d, const Box& box, const SphParams& p,
               const ActiveSet& a = ActiveSet{});
  // Sets pressure, csound, balsara of gas.
  void prepare_force(const ParticleView& d, const EosParams& eos, const SphParams& p,
                     const ActiveSet& a = ActiveSet{});
  // OVERWRITES acc (hydro only), dudt and vsig of gas, over the neighbour structure of density()
  // (which must have had the same active set).
  void forces(const ParticleView& d, const Box& box, const SphParams& p,
              const ActiveSet& a = ActiveSet{});

  // The neighbour tree rebuilt from the current positions and h of all gas, for pair passes of
  // other stages (the time-step limiter) with gpu::for_each_pair in walk mode (no leaf lists).
  gpu::TreeView tree_for_pairs(const ParticleView& d, const Box& box);

  // The pair lists of the last density() when it recorded them for exactly this active set.
  GpuPairLists pair_lists(const ActiveSet& a) const;
  // Whether density() over a subset records its pair lists (default true: block substeps' limiter
  // and wake-up read them). A caller whose subsets need none (the device-resident MPI ranks' work
  // store: its local gas, the ghosts inactive) saves their (kGpuPairListCapacity + 1) x 4 bytes
  // per active particle and the writes.
  void record_pair_lists(bool on);

  // Diagnostic: for every gas i, the number of j != i with r_ij < h_i + h_j that the pair passes
  // visit (device array of n_gas), over the neighbour structure of a density() over all gas.
  void pair_counts(const ParticleView& d, const Box& box, int32_t* device_count);

  // Device word holding the OR of GpuSphErrorBits raised since the last clear_errors().
  const uint32_t* device_error_flags() const;
  void clear_errors();
  // Synchronises, reads the word, and throws mpsph::Error describing it when set.
  void throw_if_errors(int n_neighbours);

  // Device memory held by the neighbour structure (bytes; not counting a lent scratch).
  std::size_t device_bytes() const;
  // The leaf lists (density -> forces) live in `scratch` from now on (null: a buffer of this
  // object's own); the lender may use it for other stages outside that window.
  void set_scratch(DeviceScratch* scratch);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpsph
