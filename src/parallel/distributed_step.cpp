#include "parallel/distributed_step.hpp"

#include <algorithm>
#include <string>

#include "core/active_set.hpp"
#include "core/error.hpp"
#include "core/particle_order.hpp"
#include "core/wall_clock.hpp"
#include "parallel/distributed_limiter.hpp"
#include "sph/eos_kern.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator.hpp"

namespace mpsph {

DistributedStepper::DistributedStepper(const Box& box, const SphParams& sph, const EosParams& eos,
                                       const GravityParams& grav, const TimestepParams& tstep,
                                       const DecompositionParams& decomposition,
                                       const MpiComm& comm, double G, Backend backend)
    : box_(box),
      sph_(sph),
      eos_(eos),
      grav_(grav),
      tstep_(tstep),
      decomposition_(decomposition),
      comm_(comm),
      G_(G),
      passes_(backend == Backend::Gpu ? make_gpu_sph_passes() : make_cpu_sph_passes()),
      gravity_(backend) {
  check_gravity_across_ranks(grav, box);
}

void DistributedStepper::order_and_forces(ParticleStore& store, bool first) {
  decompose_and_order(store, first);
  smoothing_lengths(store);
  density_and_forces(store);
  gravity(store);
  end_force(store);
}

void DistributedStepper::decompose_and_order(ParticleStore& store, bool first) {
  // Spawn requests are applied before, with ids unique over the ranks (the rank backend's order
  // stage, run/mpi/rank_backend.cpp); one left here is refused. Removed particles (a sink's
  // accreted gas, a merged sink) sort last in the order stage and are dropped there, as on one
  // process (run/cpu_backend.cpp).
  bool spawns = false;
  const std::ptrdiff_t n = std::ptrdiff_t(store.size());
#pragma omp parallel for schedule(static) reduction(|| : spawns)
  for (std::ptrdiff_t i = 0; i < n; ++i) spawns = spawns || store.spawn_mass[std::size_t(i)] != 0.0;
  if (comm_.any(spawns))
    throw Error(
        "MPI: spawn requests must be applied before the order stage across ranks (docs/mpi.md)");
  // The cost of a gas particle is its last neighbour count (1 before the first SPH pass).
  // The migration leaves the store uncompacted: the order stage's one permute both drops the
  // particles that left and orders those held (the store of a compaction and an order_particles,
  // with one pass over every field instead of two).
  const double t0 = wall_seconds();
  std::vector<std::size_t> held;
  decomposition_report_ = decomposition_.update(
      store, box_, first ? std::vector<double>{} : cost_weights(store, decomposition_.params()),
      comm_, &held);
  const double t1 = wall_seconds();
  order_particles(store, box_, &held);
  drop_removed(store);
  // Module stages until the next order stage may change types in the gas range in place.
  store.pin_n_gas();
  hydro_ = sph_.enough_gas(std::size_t(comm_.sum(uint64_t(store.n_gas()))));
  // The halos' order keys, for the SPH stages and the physics modules until the next order stage
  // (the particles keep their store places until then).
  order_ = sph_order(store, box_, comm_);
  tree_stale_ = true;
  decomposition_s_ = t1 - t0;
  if (decomposition_report_.recut) decomposition_.note_recut_cost(decomposition_s_, comm_);
  order_s_ = wall_seconds() - t1;
  sph_report_ = DistributedSphReport{};
}

namespace {

// The local store indices of the active gas (ascending), or null for all of it.
const std::vector<uint32_t>* active_gas(const ActiveSet& a, std::vector<uint32_t>& out) {
  if (a.all()) return nullptr;
  out.assign(a.index, a.index + a.n_gas);
  return &out;
}

}  // namespace

void DistributedStepper::smoothing_lengths(ParticleStore& store, const ActiveSet& a) {
  if (hydro_)
    distributed_smoothing_lengths(store, box_, order_, sph_, comm_, *passes_, sph_report_,
                                  active_gas(a, active_gas_), &candidates_);
}

void DistributedStepper::density_and_forces(ParticleStore& store, const ActiveSet& a) {
  const bool block = tstep_.scheme == TimestepScheme::Block;
  if (hydro_) {
    distributed_density_forces(store, box_, order_, sph_, eos_, comm_, *passes_, sph_report_,
                               active_gas(a, active_gas_), block ? &pairs_ : nullptr, &candidates_);
    return;
  }
  // Too few gas particles for SPH (an N-body run): they move without pressure forces
  // (run/end_force_kern.hpp, clear_hydro_particle).
  const std::size_t n_gas = a.gas_count(store.n_gas());
  for (std::size_t k = 0; k < n_gas; ++k) store.acc[a[k]] = {0, 0, 0}, store.dudt[a[k]] = 0.0;
}

void DistributedStepper::gravity(ParticleStore& store, const ActiveSet& a) {
  // The tree is rebuilt after an order stage and refitted to the drifted particles otherwise
  // (block steps inside a segment), as one process does (run/cpu_backend.cpp).
  gravity_report_ = gravity_.compute(store, grav_, G_, comm_, a,
                                     tree_stale_ ? TreeUpdate::Rebuild : TreeUpdate::Refit);
  tree_stale_ = false;
}

void DistributedStepper::end_force(ParticleStore& store, const ActiveSet& a) {
  const std::size_t n_gas = store.n_gas();
  // end force (run/end_force_kern.hpp): the hydro acc of gas plus gravity; without gravity the
  // gravity fields are zero.
  const std::ptrdiff_t n = std::ptrdiff_t(a.count(store.size()));
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = a[std::size_t(k)];
    if (i >= n_gas) store.acc[i] = {0, 0, 0};
    if (grav_.enabled) store.acc[i] += store.acc_grav[i];
  }
}

void DistributedStepper::limit_steps(ParticleStore& store, const ActiveSet& a, int64_t now,
                                     double length) {
  compute_timestep_criteria(store, a, tstep_, grav_, hydro_);
  const bool limiter = tstep_.scheme == TimestepScheme::Block && hydro_;
  distributed_limit_timesteps(store, a, pairs_, now, length,
                              limiter ? double(tstep_.limiter_factor) : 0.0, comm_);
}

bool DistributedStepper::assign_rungs(ParticleStore& store, const ActiveSet& a, int64_t now,
                                      double length) {
  return distributed_assign_rungs(store, a, pairs_, now, length,
                                  hydro_ ? tstep_.limiter_shift() : -1, comm_);
}

double DistributedStepper::next_dt(ParticleStore& store) {
  double dt = comm_.min(compute_timestep_criteria(store, ActiveSet{}, tstep_, grav_, hydro_));
  // dt_limit = dt_crit, as the one-process global scheme keeps it (run/cpu_backend.cpp
  // limit_steps: the modules' time-step stages start from it; checkpoints hold it).
  std::copy(store.dt_crit.begin(), store.dt_crit.end(), store.dt_limit.begin());
  if (tstep_.dt_max > 0.0) dt = std::min(dt, tstep_.dt_max);
  return dt;
}

double DistributedStepper::start(ParticleStore& store) {
  order_and_forces(store, true);
  return next_dt(store);
}

double DistributedStepper::step(ParticleStore& store, double dt) {
  if (tstep_.scheme != TimestepScheme::Global)
    throw Error(
        "DistributedStepper::step runs the global scheme; block steps run as the driver's "
        "stages (run/mpi/rank_backend.cpp)");
  // Under the global scheme a segment is one step of every particle on rung 0.
  if (comm_.any(!begin_segment(store, dt, true)))
    throw Error("MPI: a time step of " + std::to_string(dt) + " is too long for some particle");
  const double tick_len = dt / double(kTicks);
  predict_to(store, kTicks, tick_len, box_, eos_);
  order_and_forces(store, false);
  correct_active(store, ActiveSet{}, tick_len, box_, eos_evolves_u(eos_));
  return next_dt(store);
}

}  // namespace mpsph
