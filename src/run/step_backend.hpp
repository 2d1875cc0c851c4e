// The step's core stages behind one interface, implemented once per backend: the CPU backend runs
// the OpenMP drivers on the host store; the GPU backend keeps the particles on the device for the
// whole run and copies them to the host store only when asked (snapshots, checkpoints). The
// simulation driver calls these in the order of DESIGN.md section 2.
//
// Physics modules (core/physics_module.hpp) are not stages of this interface: a module is built for
// the backend's kind and run_module_stage() hands it the backend's particle arrays, so adding a
// module touches neither backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/physics_module.hpp"
#include "gravity/gravity_params.hpp"
#include "run/diagnostics.hpp"
#include "run/health.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

class GpuRanks;

// What every stage may read; the referenced objects outlive the backend.
struct StepContext {
  ParticleStore& store;  // host particles (authoritative on the CPU backend)
  const Box& box;
  const SphParams& sph;
  const EosParams& eos;
  const GravityParams& grav;
  const TimestepParams& tstep;
  double G;  // gravitational constant in code units
  // The energy terms of the run's modules (host addresses on the CPU backend, device addresses on
  // the GPU backend), in the order of energy.csv's columns.
  std::vector<EnergyTerm> energy_terms;
  // The optional field groups the run's modules use (PhysicsModule::device_field_groups): the GPU
  // backend holds these on the device, and the groups whose values differ between the particles
  // (ParticleStore::varying_field_groups), and no others. Every group unless the caller knows
  // better.
  unsigned device_field_groups = kAllFieldGroups;
};

// What timestep() found.
struct StepTimes {
  double dt = 0.0;       // smallest dt_limit (block) or criterion (global) of the active particles
  bool rungs_ok = true;  // false: some particle needs a step below segment / 2^kMaxRung
};

class StepBackend {
 public:
  virtual ~StepBackend() = default;
  virtual const char* name() const = 0;
  virtual Backend kind() const = 0;

  // --- time integration (timestep/integrator.hpp; the global scheme is one step per segment with
  // every particle on rung 0)
  // Starts a synchronisation segment of `length` code time: every particle's current state is the
  // base of its first step, on rung 0 (`single_rung`) or on the rung of its dt_limit. False when
  // some particle needs a step below length / 2^kMaxRung.
  virtual bool begin_segment(double length, bool single_rung) = 0;
  // Tick of the next substep: the earliest end of a current step.
  virtual int64_t next_tick() = 0;
  // Moves every particle to tick `now` of the segment from the start of its own step.
  virtual void predict(int64_t now) = 0;
  // Applies the particle changes the stages asked for since the last order
  // (run/particle_changes.hpp: children of spawn requests get ids from next_id(), removed particles
  // are dropped), then sorts by (type, key; core/sfc_key.hpp), builds the trees and selects the
  // active particles (those whose step ends at the predicted tick) for the stages that follow.
  virtual void order() = 0;
  // Particles of the current active set (valid from order() to the next predict()).
  virtual std::size_t active_count() const = 0;
  virtual void smoothing_lengths() = 0;
  virtual void density() = 0;
  virtual void prepare_force() = 0;
  virtual void sph_forces() = 0;
  virtual void gravity() = 0;
  virtual void end_force() = 0;  // acc = hydro + gravity
  // Stage `index` of module `m` (built for this backend's kind) on this backend's arrays and
  // active set.
  virtual void run_module_stage(PhysicsModule& m, std::size_t index, double time, long step) = 0;
  // A stage of slot Diagnostics (it reads the particles, changes nothing): as run_module_stage,
  // without marking the arrays changed, so that it costs the GPU backend no extra host copy;
  // `accounts` are the run's energy accounts of the energy.csv row (StageArgs::accounts).
  virtual void run_module_output(PhysicsModule& m, std::size_t index, double time, long step,
                                 const std::vector<EnergyAccount>& accounts) = 0;
  // The diagnostic values of module `m` (PhysicsModule::diagnostic_values) on this backend's
  // arrays.
  virtual std::vector<double> module_diagnostics(PhysicsModule& m) = 0;
  // The corrector of the active particles; u too unless a module integrates it (integrate_u =
  // false).
  virtual void correct(bool integrate_u) = 0;
  // The end of a substep, in two calls with the modules' stages of slot StepLimit between them:
  // limit_steps(): the criteria of the active particles (dt_crit) and, under the block scheme,
  // the neighbour limiter (dt_limit);
  // timestep(): under the block scheme and inside a segment (now < kTicks), the rungs of the
  // active particles' next steps from dt_limit and the wake-up of their neighbours. On the GPU
  // backend this is the substep's one host synchronisation, which also collects the conserved
  // sums, the particle counts, the modules' last-step energies and the next substep's tick and
  // active set.
  virtual void limit_steps() = 0;
  virtual StepTimes timestep() = 0;
  // The last-step values of StepContext::energy_terms, in order.
  virtual std::vector<double> energy_last_step() = 0;
  virtual Conserved conserved() = 0;  // accounted = 0
  // The health check of every particle at the last time step (run/health.hpp); on the GPU backend
  // part of the step's one synchronisation.
  virtual HealthReport health() = 0;
  // Gas particles after the last order stage (the SPH stages run when there are any).
  virtual std::size_t gas_count() const = 0;
  // Total particles, as of the last order stage or synchronisation.
  virtual std::size_t particle_count() const = 0;

  // The id the next particle created gets; ids are unique for the whole run.
  virtual uint64_t next_id() const = 0;
  virtual void set_next_id(uint64_t id) = 0;

  // The acc_grav just loaded (restart) is the previous force evaluation's: gravity's relative
  // opening criterion may use it at once, so a restarted run continues bit-identically.
  virtual void assume_previous_gravity() = 0;

  // Host store <- backend (no-op on the CPU backend).
  virtual void sync_to_host() = 0;
  // Backend <- host store, after the host store changed (initial conditions, restart, tests).
  virtual void sync_from_host() = 0;
  // Once the run's box is known (initial conditions or checkpoint), before any output is
  // written: mpsph::Error for what this backend cannot run in it (gravity in a periodic box
  // across MPI ranks). Nothing by default.
  virtual void check_box() {}
  // Lines appended to timing.txt after `steps` steps: what the stage rows do not show (the rank
  // backend's split of its stages into halos, passes and locally essential trees). Collective
  // across MPI ranks: every rank calls it. Empty by default.
  virtual std::string timing_notes(long steps) {
    (void)steps;
    return {};
  }
  // Waits until the work queued so far is done (GPU: a device synchronisation; CPU: nothing, its
  // stages return when done). Only for stage timing (run.timing_sync).
  virtual void fence() {}
};

std::unique_ptr<StepBackend> make_cpu_backend(const StepContext& ctx);
// Defined in CUDA builds; a CPU-only build throws mpsph::Error saying so.
std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx);
// The GPU backend as one of several MPI ranks, its particles on this process's GPU for the whole
// run (run/gpu_ranks.hpp: `ranks` runs the stages that cross ranks). Global time steps only, no
// physics module: mpsph::Error otherwise (the host-staged ranks, run/mpi/rank_backend.hpp, run
// those).
std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx,
                                              std::unique_ptr<GpuRanks> ranks);

}  // namespace mpsph
