// Pure-SPH time steps across MPI ranks (docs/mpi.md): the stages of Simulation::substep on the
// CPU backend under the global scheme (run/cpu_backend.cpp) - predict, order, smoothing lengths,
// density, prepare force, SPH forces, end force, correct, time step - with the domain
// decomposition and migration after the predictor, the SPH passes of distributed_sph.hpp, and
// the time step the minimum over all ranks. A run on N ranks gives the particles, bit for bit,
// of the same run on one process (tests/parallel/sph_global_step_mpi.cpp).
//
// What is not supported across ranks yet is refused, never computed wrongly: gravity, block time
// steps, and particle creation or removal (spawn requests, removed particles) - mpsph::Error.
// Physics modules are the caller's: this stepper runs none.
#pragma once

#include <cstddef>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

class SphGlobalStepper {
 public:
  // mpsph::Error when gravity is on or the time-step scheme is not the global one.
  SphGlobalStepper(const Box& box, const SphParams& sph, const EosParams& eos,
                   const GravityParams& grav, const TimestepParams& tstep,
                   const DecompositionParams& decomposition, const MpiComm& comm);

  // The first decomposition, the forces of the initial state and the first dt (what
  // Simulation::run does before its loop). `store`: this rank's particles, any of them.
  double start(ParticleStore& store);
  // One step of dt; returns the next dt (the minimum of the criteria over all ranks, at most
  // timestep.dt_max when that is set).
  double step(ParticleStore& store, double dt);

  // The two collective stages of start() and step(), for a driver that runs the predictor and
  // the corrector itself (the rank backend of `mpsph-mpi`, run/mpi/rank_backend.hpp):
  // the decomposition (by count when `first`, else by cost) and migration, the order stage, the
  // SPH passes and the end force; and the next dt, the minimum of the criteria over all ranks (at
  // most timestep.dt_max when that is set).
  void order_and_forces(ParticleStore& store, bool first);
  double next_dt(ParticleStore& store);

  const DecompositionReport& last_decomposition() const { return decomposition_report_; }
  const DistributedSphReport& last_sph() const { return sph_report_; }

 private:
  Box box_;
  SphParams sph_;
  EosParams eos_;
  GravityParams grav_;
  TimestepParams tstep_;
  DomainDecomposition decomposition_;
  MpiComm comm_;
  DecompositionReport decomposition_report_;
  DistributedSphReport sph_report_;
};

}  // namespace mpsph
