// The SPH passes of a device-resident GPU rank of `mpsph-mpi` (run/gpu_ranks.hpp) with the
// per-particle work of its halos on the device: the search radii, the search boxes sent to the
// other ranks, the halo rule's selection of the local gas they need (sph/search_box.hpp, the rule
// of parallel/sph_halo.hpp), the packing of the ghosts' fields, and each smoothing-length round's
// widening. Only the boxes, the lists of the particles sent and the ghosts' records pass through
// the host, where the MPI driver (parallel/resident_sph.hpp) exchanges them; the rank's gas never
// does. The passes run GpuSph on a work store of the local gas (copied on the device) followed by
// the ghosts, and write their results into the rank's store: the same h, pair sets and, up to
// the order of the sums, the same results as one GPU on all the particles.
//
// No MPI and no CUDA in this header; defined only in CUDA builds (resident_sph_gpu.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/box.hpp"
#include "core/vec3.hpp"
#include "sph/eos_params.hpp"
#include "sph/search_box.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

class DeviceParticles;
class DeviceScratch;

class ResidentSph {
 public:
  // The rank's particles, gas first (the first local.view().n_gas of them): read at each stage.
  // `scratch` (null: the passes' own): the backend's shared scratch, lent to the passes' leaf
  // lists (density -> forces; the halo exchange between them acquires none).
  explicit ResidentSph(DeviceParticles& local, DeviceScratch* scratch = nullptr);
  ~ResidentSph();
  ResidentSph(const ResidentSph&) = delete;
  ResidentSph& operator=(const ResidentSph&) = delete;

  // What a halo carries of each ghost: for the smoothing lengths (pos, h), for the density
  // (pos, vel, mass, h), and for the forces the density's results that force_particle() reads
  // of a neighbour (rho, pressure, csound, balsara).
  enum class Halo { h, density, refresh };
  // The records of local gas particles `index` (ascending) for a halo, `bytes()` each: into host
  // memory, or into a device buffer of this object (valid until the next pack_on_device; the
  // halos sent from GPU to GPU, parallel/device_all_to_all.hpp).
  void pack(Halo halo, const std::vector<uint32_t>& index, std::vector<unsigned char>& out) const;
  const unsigned char* pack_on_device(Halo halo, const std::vector<uint32_t>& index);
  // A halo's ghost records as the passes take them: `count` records in host or device memory.
  struct Ghosts {
    const unsigned char* data = nullptr;
    std::size_t count = 0;
    bool on_device = false;
  };
  std::size_t bytes(Halo halo) const;

  std::size_t n_local_gas() const;

  // The bounding box of the local gas and how many of it have no h yet (h <= 0): what the search
  // radius of those is guessed from (parallel/resident_sph.cpp).
  struct GasBounds {
    Vec3d lo, hi;
    std::size_t without_h = 0;
  };
  GasBounds gas_bounds() const;

  // Smoothing lengths, first round: every local gas particle searches, within 2.5 h or, without
  // an h, within `guess`. `reach`: that round's selection (domain_boxes, needed_by_all) also
  // takes each particle's search radius as its reach - the density's rule at that radius
  // (parallel/resident_sph.hpp, ResidentHalo); the later rounds select for h alone.
  void start_smoothing_lengths(double guess, bool reach = false);
  // Density and forces: every local gas particle searches within 2 h and reaches 2 h.
  void start_density();
  // The particles that search this round (all of them after a start).
  std::size_t n_searching() const;

  // The halo's boxes (sph/search_box.hpp, the exchange of parallel/sph_halo.hpp). The domain
  // boxes of the local gas (scale its search radius; radius its reach in the density stage, else
  // 0), on the host.
  std::vector<SearchBox> domain_boxes(const Box& box) const;
  // Grows the searching particles' search boxes on the device (kept until the next call) ...
  void grow_search_boxes(const Box& box);
  // ... and returns them, in their order ...
  std::vector<SearchBox> search_boxes() const;
  // ... or, for each rank r, those near one of its domain boxes [offsets[r], offsets[r + 1]) of
  // `domains` (offsets: P + 1 entries; none for a rank without boxes), in their order: one pass
  // over the search boxes for every 32 ranks (sph/box_levels.hpp, RankBoxLayout).
  std::vector<std::vector<SearchBox>> search_boxes_near(const std::vector<SearchBox>& domains,
                                                        const std::vector<std::size_t>& offsets,
                                                        const Box& box) const;
  // The local gas each rank r needs by the halo rule against its search boxes [offsets[r],
  // offsets[r + 1]) of `boxes` (offsets: P + 1 entries), ascending: j within max(b.radius,
  // reach_j) (1 + kTreeRadiusSlack) of a box b, with reach_j the search radius of the density
  // stage (none in the smoothing-length rounds). One pass over the local gas for every 32 ranks
  // finds the ranks near each particle; each rank's list is selected from those bits.
  std::vector<std::vector<uint32_t>> needed_by_all(const std::vector<SearchBox>& boxes,
                                                   const std::vector<std::size_t>& offsets,
                                                   const Box& box) const;

  // One smoothing-length round: h and nngb of the searching particles with the ghosts of
  // `ghosts` (records of Halo::h). Those whose search did not reach max(d_{N+1}, 2 h) get the
  // radius 1.25 max(d_{N+1}, 2 h) and search again next round; returns how many. With fewer gas
  // particles at hand than N_B + 1 (`short_of_gas`) nothing is searched and every searcher's
  // radius doubles (`edge` where it was 0).
  std::size_t smoothing_lengths(const Ghosts& ghosts, const Box& box, const SphParams& p,
                                bool short_of_gas, double edge);
  // rho, divv, curlv, pressure, csound, balsara (and u of a non-adiabatic EOS) of the local gas,
  // with the ghosts of Halo::density.
  void density(const Ghosts& ghosts, const Box& box, const SphParams& p, const EosParams& eos);
  // acc (hydrodynamic), dudt, vsig of the local gas over the density's pairs, once the ghosts'
  // records of Halo::refresh (same ghosts, same order) are in.
  void forces(const Ghosts& refreshed, const Box& box, const SphParams& p);

  // Device memory held here: the work store (local gas and ghosts), the passes' neighbour
  // structure and sort buffers (GpuSph), the halos' buffers (radii, lists, flags, boxes, records).
  struct Memory {
    std::size_t work = 0, passes = 0, halos = 0;
  };
  Memory device_memory() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpsph
