// The simulation driver: owns the particles, the parameters, the backend and the physics modules,
// and runs the step as a list of named, timed stages (DESIGN.md section 2):
//
//   predict -> order + trees -> smoothing lengths -> density -> prepare force -> SPH forces
//   -> gravity -> end force -> [module stages: cold phase, cooling, star formation, ...]
//   -> correct -> time step -> diagnostics / I/O
#pragma once

#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/config.hpp"
#include "core/particle_store.hpp"
#include "core/physics_module.hpp"
#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "run/diagnostics.hpp"
#include "run/ranks.hpp"
#include "run/run_params.hpp"
#include "run/stage_timer.hpp"
#include "run/step_backend.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

struct CheckpointState;

struct RunOptions {
  std::string config_path;                // may be empty with restart_path
  std::vector<std::string> overrides;     // --set a.b=c
  std::optional<std::string> device;      // --device overrides run.device
  std::optional<std::string> output_dir;  // --output-dir overrides run.output_dir
  std::string restart_path;               // --restart <checkpoint>
  bool quiet = false;                     // no progress line (tests)
  // The processes of the run (run/ranks.hpp): null = one process; `mpsph-mpi` gives its MPI ranks.
  const Ranks* ranks = nullptr;
};

class Simulation {
 public:
  explicit Simulation(const RunOptions& opt);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs to run.t_end (or max_steps, or an interrupt). Returns true when t_end was reached.
  bool run();

  // Host copy of the particles, brought up to date from the backend.
  const ParticleStore& particles();
  double time() const { return time_; }
  long step_count() const { return step_; }
  const Conserved& initial_conserved() const { return conserved0_; }
  Conserved conserved();
  const std::string& output_dir() const { return run_.output_dir; }
  const StageTimer& timer() const { return timer_; }
  // The names of the step's stages in the order they run (modules' stages included).
  std::vector<std::string> stage_names() const;
  // The physics modules of this run (every registered module, model `none` included).
  const std::vector<std::unique_ptr<PhysicsModule>>& modules() const { return modules_; }
  // Particles of every type 0..5, as of the last order stage (from the host copy).
  std::array<std::size_t, kNumTypes> count_by_type();

  // Requests a checkpoint-and-stop at the end of the current step (signal handlers call this).
  static void request_stop();

 private:
  // The run's state from a checkpoint (time, step, box, counters, energy accounts); a missing or
  // non-finite entry is an error naming the checkpoint and the entry.
  void restore_state(const CheckpointState& ckpt, const std::string& path);
  // Force evaluation at the current positions (order .. end_force).
  void compute_forces();
  // Stops the run (HealthError, exit code 4) with a diagnosis and a diagnostic snapshot when the
  // last time step found a non-finite or impossible value or dt is not finite and positive.
  void check_health();
  // The diagnosis of a failed health check from the particles of the whole run (and the
  // diagnostic snapshot beside the outputs).
  std::string health_diagnosis(ParticleStore& all, HealthReport h);
  // The module stages of `slot`, in registration order, at code time `time`.
  void run_module_stages(Slot slot, double time);
  // One (sub)step at tick `now` of the segment [t0, t0 + length): predict all, forces of the
  // active particles, module stages, corrector, time steps (and under the block scheme the rungs
  // of the next steps); returns the number of active particles.
  std::size_t substep(double t0, double length, int64_t now);
  // Refuses a non-adiabatic EOS with a module that integrates u or with timestep.use_energy.
  void check_eos_compatibility() const;
  std::string too_short_message(double length, double t0) const;
  // Output.
  void write_energy_csv_header();
  // Collective across ranks; rank 0 writes the files.
  void write_diagnostics_row();
  void write_diagnostics_line(const Conserved& c,
                              const std::vector<std::vector<double>>& module_values);
  void write_snapshot_now();
  void write_checkpoint_now(const char* reason);
  // The next output time after time_ (more than output_eps() later).
  double next_output_time() const;
  // Times closer than this count as the same output time.
  double output_eps() const;
  void log(const std::string& line) const;
  // Runs f on rank 0 (on one process: just runs it); an mpsph::Error there is thrown on every
  // rank, so that no rank waits in a collective call for one that stopped.
  template <class F>
  void on_root(F&& f) const;
  // The parts of one file (io/snapshot.hpp SnapshotPart) written by the ranks in turn, `part()`
  // writing this rank's, then committed by rank 0 (collective; an error on any rank is an error
  // on every rank).
  // Runs f on every rank; an mpsph::Error on any rank is an Error on every rank (none is left
  // waiting in a collective call; `what` names the work in the other ranks' message).
  template <class F>
  void on_every_rank(const std::string& what, F&& f) const;
  template <class F>
  void write_in_turn(const std::string& path, const char* what, F&& part) const;
  // Across ranks each rank reads its 1/P range of the checkpoint's particles (no process holds
  // them all: io/checkpoint.hpp read_checkpoint_part), and rank 0 the state (collective).
  void read_checkpoint_in_parts(const std::string& path, CheckpointState& ckpt);
  // The particles for the health diagnosis: the store on one process; across ranks every rank's
  // particles gathered into `scratch` on rank 0, sorted by (type, id), and an empty store on the
  // other ranks (collective).
  ParticleStore& file_particles(ParticleStore& scratch);

  Config config_;
  RunParams run_;
  UnitSystem units_;
  SphParams sph_;
  EosParams eos_;
  GravityParams grav_;
  TimestepParams tstep_;
  Box box_;

  ParticleStore store_;
  std::vector<std::unique_ptr<PhysicsModule>> modules_;
  std::vector<EnergyTerm> energy_terms_;  // all modules' terms, in energy.csv column order
  std::vector<double> energy_accounts_;   // each term summed over the run, code energy
  bool modules_integrate_u_ = false;      // a module stage integrates u: the corrector does not
  std::unique_ptr<StepBackend> backend_;
  StageTimer timer_;

  double time_ = 0.0;
  double t_start_ = 0.0;
  double dt_ = 0.0;         // next step's size from the criteria
  long step_ = 0;           // (sub)steps: force evaluations of the active particles
  long segment_ = 0;        // synchronisation segments completed (= steps, global scheme)
  long next_snapshot_ = 0;  // index of the next snapshot file
  Conserved conserved0_;
  const Ranks& ranks_;
  bool quiet_ = false;   // the --quiet option: no progress line, no log (same on every rank)
  bool speaks_ = false;  // this process prints the log and the progress line (rank 0, not quiet)
  bool told_no_sph_ = false;  // the log said the gas became too few for SPH
  std::FILE* energy_csv_ = nullptr;
};

}  // namespace mpsph
