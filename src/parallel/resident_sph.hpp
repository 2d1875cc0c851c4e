// The SPH stages across MPI ranks of the device-resident GPU ranks (run/gpu_ranks.hpp): the
// halos of parallel/distributed_sph.hpp - the same rule, the same smoothing-length rounds, the
// same exactness of h and the pair sets - with every per-particle step on the rank's GPU
// (sph/resident_sph_gpu.hpp). Through the host and MPI go only the search boxes, the counts, and
// the records of the ghosts - or, with a usable DeviceAllToAll (all ranks on one node), not even
// those: the ghosts' records go from GPU to GPU; the rank's gas stays on its GPU.
//
// Global time steps only (every local gas particle is active): the block-step halos and the pair
// lists of the limiter stay with the host-staged ranks (docs/mpi.md).
#pragma once

#include "core/box.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/mpi_comm.hpp"
#include "sph/eos_params.hpp"
#include "sph/resident_sph_gpu.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

class DeviceAllToAll;  // parallel/device_all_to_all.hpp (CUDA builds)

// The first smoothing-length round's halo, kept for the density stage. That round selects by the
// density's rule (each particle's search radius, 2.5 h of the last step, is its reach too). When
// no rank widened a radius in it (the steps after the start-up, as a rule), 2 h <= that radius
// for every particle, so its ghosts hold every pair of the density stage (r_ij < h_i + h_j <=
// max(2 h_i, 2 h_j)): the density's records travel along its plan, without boxes or a selection
// of their own (one halo selection per step instead of two; a few more ghosts).
struct ResidentHalo {
  ExchangePlan plan;
  bool serves_density = false;
};

// h and nngb of the rank's gas (collective); `halo` receives the first round's. `device`: the
// halos' records go GPU to GPU through it (null: through the host and MPI).
void resident_smoothing_lengths(ResidentSph& sph, const Box& box, const SphParams& p,
                                const MpiComm& comm, DistributedSphReport& rep, ResidentHalo& halo,
                                DeviceAllToAll* device = nullptr);
// rho, divv, curlv, pressure, csound, balsara (u of a non-adiabatic EOS), then the hydrodynamic
// acc, dudt and vsig of the rank's gas, with every h final (collective). `halo`: the smoothing
// lengths' (its plan serves when it says so; else the density selects its own halo).
void resident_density_forces(ResidentSph& sph, const Box& box, const SphParams& p,
                             const EosParams& eos, const MpiComm& comm, DistributedSphReport& rep,
                             const ResidentHalo& halo, DeviceAllToAll* device = nullptr);

}  // namespace mpsph
