// The interface through which a physics module plugs into the step (STYLE.md item 8, after SWIFT's
// src/cooling/{none,const_lambda}). A module (cooling, the cold phase, star formation, sinks) lives
// in its own folder and is added to a run by
//   - its fields in the field table (core/particle_fields.hpp),
//   - its parameter keys (ModuleEntry::add_params), under the config section of its name, with a
//     `model` key whose first choice is `none`,
//   - one registration line in run/module_registry.cpp.
// The run layer then builds the chosen model for the run's backend, puts the module's stages into
// the step by name (they are timed, listed at start and written to timing.txt), and adds the
// module's energy accounts to energy.csv and to the conserved total. The interface is pure
// machinery: it includes no physics.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class Config;
class ModuleRanks;
class Schema;
struct UnitSystem;

// Where the particle arrays of a stage live.
enum class Backend { Cpu, Gpu };

// Where in the step a module stage runs (DESIGN.md section 2).
enum class Slot {
  // After the force evaluation (end force) and before the corrector: the cold phase, cooling,
  // star formation and feedback, in registration order. x and v are the predicted values; u0,
  // dudt0 (start of step) and dudt (predicted state) are set for the gas.
  AfterForces,
  // After the corrector and before the time-step criteria: the active particles are synchronised
  // (x, v, u are the end of their step and already their next step's base), so a stage may merge
  // or convert them (sink creation and accretion) without breaking the integration.
  AfterCorrect,
  // At the end of a (sub)step, after the time-step criteria and, under the block scheme, the
  // neighbour limiter (dt_crit and dt_limit of the active particles are set), before the active
  // particles get the rungs of their next steps from dt_limit: a stage may shorten the dt_limit of
  // active particles and wake inactive ones (rung_wake, timestep/block_step_kern.hpp
  // wake_particle): sinks follow the steps of the gas near them. Under the global scheme dt_limit
  // = dt_crit of every particle and the step is the smallest dt_limit after these stages: the
  // cold phase's criteria (multiphase/cloud_timestep_kern.hpp) cut it under both schemes.
  StepLimit,
  // With every energy.csv row, at a synchronisation point: writes the module's own diagnostics
  // (sinks.csv). StageArgs::active is not meaningful there; the stage reads every particle.
  Diagnostics,
};

// An energy account of the run at a diagnostics row: one module's EnergyTerm (below) summed over
// the run, the value of its energy.csv column.
struct EnergyAccount {
  std::string column;  // energy.csv column, e.g. "E_feedback"
  double sum;          // code energy
};

// The sum of the account `column` in `accounts` (null: none), or 0 when no module of the run keeps
// it. This is how a module reads another's energy without naming its code (sfr.csv reports the
// feedback module's E_feedback).
inline double energy_account(const std::vector<EnergyAccount>* accounts,
                             const std::string& column) {
  if (accounts)
    for (const EnergyAccount& a : *accounts)
      if (a.column == column) return a.sum;
  return 0.0;
}

// What a stage sees. The view holds host arrays on the CPU backend and device arrays on the GPU
// backend (a module built for Backend::Gpu launches kernels on them; nothing is synchronised).
struct StageArgs {
  ParticleView p;  // n and n_gas of the last order stage
  Box box;
  double time;  // code time of the (sub)step's force evaluation
  long step;    // index of that (sub)step (the first of a run is 0)
  // The particles whose steps end at this (sub)step: a stage updates only these. Particle i's
  // step is [ti_begin, ti_end) ticks of tick_len code time: dt_i = (ti_end - ti_begin) tick_len
  // (timestep/block_step_kern.hpp particle_step). active.all() only under the global scheme:
  // every particle, all with the one step kTicks tick_len.
  ActiveSet active;
  double tick_len;
  // First store index of each type after the last order stage (the store is sorted by type), and
  // type_begin[kNumTypes] = n: type t is [type_begin[t], type_begin[t + 1]). A stage may change
  // types in place; the ranges stay those of the order stage until the next one.
  std::array<std::size_t, kNumTypes + 1> type_begin;
  // True under the block scheme (individual steps: rungs, dt_limit and wake-ups are in use).
  bool individual_steps = false;
  // Slot Diagnostics only: every module's energy account as written in the energy.csv row of this
  // time (after every stage of the step, so a module reads the others' whole step); null in the
  // other slots.
  const std::vector<EnergyAccount>* accounts = nullptr;
  // Across the MPI ranks of `mpsph-mpi`: what the stage may ask of the other ranks
  // (core/module_ranks.hpp); `p` then holds this rank's particles only. Null on one process.
  const ModuleRanks* ranks = nullptr;
};

struct ModuleStage {
  std::string name;  // e.g. "cooling"; shown in the step list, the timing table and timing.txt
  Slot slot;
};

// An energy account of a module: the energy the module took out of the particles in the last step
// (> 0: radiated, dissipated; < 0: injected). The run sums it over the run, writes the sum as an
// energy.csv column, and adds it to E_total, so E_total stays constant when the bookkeeping is
// right.
struct EnergyTerm {
  std::string column;       // energy.csv column, e.g. "E_radiated"
  const double* last_step;  // host address (Backend::Cpu) or device address (Backend::Gpu), valid
                            // for the module's lifetime; the GPU backend reads it at the step's
                            // one host synchronisation
};

class PhysicsModule {
 public:
  virtual ~PhysicsModule() = default;
  // The config section that chose the module, e.g. "cooling", and its model, e.g. "sd93" or "none".
  virtual std::string section() const = 0;
  virtual std::string model() const = 0;
  // The module's stages in the order they run (empty for `none`).
  virtual std::vector<ModuleStage> stages() const = 0;
  // Runs stages()[index] on the arrays of the backend the module was built for.
  virtual void run_stage(std::size_t index, const StageArgs& args) = 0;

  // True when a stage integrates the gas u over the step itself (implicit cooling does): the
  // corrector then leaves u alone.
  virtual bool integrates_internal_energy() const { return false; }
  virtual std::vector<EnergyTerm> energy_terms() const { return {}; }
  // GADGET header flags the module turns on in snapshots (e.g. "Flag_Cooling").
  virtual std::vector<std::string> snapshot_flags() const { return {}; }
  // Fills derived output fields (e.g. the temperature) of the host store before a snapshot.
  virtual void prepare_output(ParticleStore& /*host*/) const {}
  // Particle types the module evolves beyond those every run does (gas 0 by SPH, dark matter 1
  // and stars 3, 4 as collisionless particles): cold clouds 2, sinks 5. A run refuses initial
  // conditions and checkpoints holding a type that none of its modules evolves.
  virtual std::vector<int> particle_types() const { return {}; }
  // Opens the module's own diagnostics files in `output_dir` before the run's first row: a new
  // run creates them with their headers; a restart at `time` keeps their rows up to `time` (a run
  // killed after its checkpoint wrote more) and appends.
  virtual void open_outputs(const std::string& /*output_dir*/, double /*time*/, bool /*restart*/) {}
  // Extra energy.csv columns of the module (e.g. the mass of each phase), written after the
  // conserved quantities on every diagnostics row; a header comment line says what they are.
  virtual std::vector<std::string> diagnostic_columns() const { return {}; }
  virtual std::string diagnostic_header() const { return ""; }
  // Their values for the particles `p` (host arrays on Backend::Cpu, device arrays on
  // Backend::Gpu; the GPU module reduces on the device and copies the few values back). Called at
  // diagnostics rows only.
  virtual std::vector<double> diagnostic_values(const ParticleView& /*p*/) { return {}; }
  // Lines for the run's log of events since the last call (e.g. sink merges), taken after every
  // diagnostics row; the run prints them in this order.
  virtual std::vector<std::string> take_log_lines() { return {}; }
  // True when every stage acts on each particle alone - no neighbours, no particle creation or
  // removal, no diagnostics columns, no StepLimit stage - so that the module runs unchanged on the
  // particles of each MPI rank (its energy terms are summed over the ranks).
  virtual bool particle_local() const { return false; }
  // True when the module runs across the ranks of `mpsph-mpi`: particle-local ones unchanged,
  // others through StageArgs::ranks (core/module_ranks.hpp) - their stages then produce across
  // ranks what they produce on one process. `mpsph-mpi` refuses the others.
  virtual bool runs_across_ranks() const { return particle_local(); }
  // The optional field groups (FieldGroup, core/particle_fields.hpp) that the module's stages and
  // diagnostics read or write: the GPU backend keeps them on the device. Every group unless the
  // module says fewer; none for model none (no stages).
  virtual unsigned device_field_groups() const {
    return model() == "none" ? 0u : unsigned(kAllFieldGroups);
  }
};

// What run/module_registry.cpp lists for each module.
struct ModuleEntry {
  const char* section;  // config section (= module folder name where possible)
  // Adds the module's keys to the program's schema.
  void (*add_params)(Schema& schema);
  // The model the config chose, built for `backend` (a CPU-only build asked for Backend::Gpu
  // throws mpsph::Error). Model `none` gives a module with no stages.
  std::unique_ptr<PhysicsModule> (*make)(const Config& cfg, const UnitSystem& units,
                                         Backend backend);
};

}  // namespace mpsph
