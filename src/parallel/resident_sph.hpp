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

// h and nngb of the rank's gas (collective). `device`: the halos' records go GPU to GPU through it
// (null: through the host and MPI).
void resident_smoothing_lengths(ResidentSph& sph, const Box& box, const SphParams& p,
                                const MpiComm& comm, DistributedSphReport& rep,
                                DeviceAllToAll* device = nullptr);
// rho, divv, curlv, pressure, csound, balsara (u of a non-adiabatic EOS), then the hydrodynamic
// acc, dudt and vsig of the rank's gas, with every h final (collective).
void resident_density_forces(ResidentSph& sph, const Box& box, const SphParams& p,
                             const EosParams& eos, const MpiComm& comm, DistributedSphReport& rep,
                             DeviceAllToAll* device = nullptr);

}  // namespace mpsph
