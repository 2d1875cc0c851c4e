// SPH and gravity time steps across MPI ranks (docs/mpi.md): the stages of Simulation::substep on
// the CPU backend (run/cpu_backend.cpp) - predict, order, smoothing lengths, density, prepare
// force, SPH forces, gravity, end force, correct, time step - with the domain decomposition and
// migration in the order stage, the SPH passes of distributed_sph.hpp, the tree gravity of
// distributed_gravity.hpp, and the time step the minimum over all ranks. Both time-step schemes:
// under the block scheme the decomposition and the order come at the first substep of each
// segment only (the particles keep their ranks and store places through the segment, as one
// process keeps its order), the SPH and gravity stages run for the active particles, and the
// neighbour limiter and wake-up reach across ranks (distributed_limiter.hpp).
// Without gravity a run on N ranks gives the particles, bit for bit, of the same run on one
// process (tests/parallel/sph_global_step_mpi.cpp, tests/parallel/mpi_run_test.py); with gravity
// the forces carry the tree error of the single-process criterion
// (tests/parallel/gravity_global_step_mpi.cpp). With N_B or fewer gas particles over all ranks
// (an N-body run) the SPH stages are skipped, as on one process.
//
// What is not supported across ranks yet is refused, never computed wrongly: gravity by direct
// summation or in a periodic box, and particle creation or removal (spawn requests, removed
// particles) - mpsph::Error. Physics modules are the
// caller's: this stepper runs none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/physics_module.hpp"
#include "gravity/gravity_params.hpp"
#include "parallel/distributed_gravity.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "sph/sph_passes.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

class DistributedStepper {
 public:
  // mpsph::Error when gravity is on with the direct method or in a periodic box. G: the
  // gravitational constant in code units (Units::G).
  // `backend`: where the SPH passes and the gravity tree run (Gpu: the current CUDA device, on
  // device copies of the rank's particles, sph/sph_passes.hpp and gravity/tree_with_sources.hpp);
  // everything else - decomposition, halos, locally essential trees, predictor, corrector, time
  // step - runs on the host.
  DistributedStepper(const Box& box, const SphParams& sph, const EosParams& eos,
                     const GravityParams& grav, const TimestepParams& tstep,
                     const DecompositionParams& decomposition, const MpiComm& comm, double G = 1.0,
                     Backend backend = Backend::Cpu);

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
  // order_and_forces() in its five collective stages, in this order (the rank backend runs them
  // as the driver's stages, so that timing.txt shows each): the decomposition, migration and
  // order; the smoothing lengths; the density, EOS and SPH forces; gravity; the end force.
  // Block time steps: the decomposition and order at the first substep of a segment only; the
  // other stages for the active particles `a` (select_active on this rank's particles, gas first;
  // default: all), and the two time-step stages below.
  void decompose_and_order(ParticleStore& store, bool first);
  void smoothing_lengths(ParticleStore& store, const ActiveSet& a = {});
  void density_and_forces(ParticleStore& store, const ActiveSet& a = {});
  void gravity(ParticleStore& store, const ActiveSet& a = {});
  void end_force(ParticleStore& store, const ActiveSet& a = {});
  // The criteria of the active particles (dt_crit) and, under the block scheme with SPH, the
  // neighbour limiter across ranks (dt_limit; else dt_limit = dt_crit), at tick `now` of a
  // segment of `length` (collective).
  void limit_steps(ParticleStore& store, const ActiveSet& a, int64_t now, double length);
  // The rungs of the active particles' next steps and the wake-up of their neighbours across ranks
  // (block scheme, now < kTicks); false on every rank when some particle needs a step below
  // length / 2^kMaxRung (collective).
  bool assign_rungs(ParticleStore& store, const ActiveSet& a, int64_t now, double length);

  // This rank's cost weights from the next decompose_and_order on (measured_cost_weights).
  void set_cost_weights(const CostWeights& w) { decomposition_.set_weights(w); }
  const CostWeights& decomposition_weights() const { return decomposition_.params().weights; }
  const DecompositionReport& last_decomposition() const { return decomposition_report_; }
  const DistributedSphReport& last_sph() const { return sph_report_; }
  const DistributedGravityReport& last_gravity() const { return gravity_report_; }
  // Wall seconds of the last decompose_and_order(): the decomposition with the migration, and the
  // order stage.
  double last_decomposition_s() const { return decomposition_s_; }
  double last_order_s() const { return order_s_; }
  // The order keys of the last decompose_and_order (one per particle of the store in store
  // order, until the next one): what the physics modules across ranks order by
  // (ModuleRanks::order_key).
  const std::vector<uint64_t>& order_keys() const { return order_.keys; }
  // The store's acc_grav is a previous evaluation's (a restart from a checkpoint).
  void assume_previous_gravity() { gravity_.assume_previous(); }

 private:
  Box box_;
  SphParams sph_;
  EosParams eos_;
  GravityParams grav_;
  TimestepParams tstep_;
  DomainDecomposition decomposition_;
  MpiComm comm_;
  double G_;
  bool hydro_ = true;  // more than N_B gas particles over all ranks: the SPH stages run
  std::unique_ptr<SphPasses> passes_;
  DistributedGravity gravity_;
  DecompositionReport decomposition_report_;
  DistributedSphReport sph_report_;
  DistributedGravityReport gravity_report_;
  double decomposition_s_ = 0.0, order_s_ = 0.0;
  SphOrder order_;             // of the last decompose_and_order, for the SPH halos
  bool tree_stale_ = true;     // the particles were ordered since the gravity tree was built
  HaloPairs pairs_;            // of the last density_and_forces (block scheme), for the limiter
  HaloCandidates candidates_;  // of the last smoothing_lengths, for density_and_forces
  std::vector<uint32_t> active_gas_;  // scratch: the active gas of a stage
};

}  // namespace mpsph
