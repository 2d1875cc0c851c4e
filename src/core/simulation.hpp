// The simulation driver: owns the particles, the modules' parameters and workspaces, and runs the
// step as a list of named, timed stages (DESIGN.md section 2):
//
//   predict -> order -> smoothing lengths -> density -> prepare force -> SPH forces -> gravity
//   -> cooling -> correct -> time step -> diagnostics / I/O
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/config.hpp"
#include "core/diagnostics.hpp"
#include "core/particle_store.hpp"
#include "core/run_params.hpp"
#include "core/stage_timer.hpp"
#include "core/step_backend.hpp"
#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

struct RunOptions {
  std::string config_path;                // may be empty with restart_path
  std::vector<std::string> overrides;     // --set a.b=c
  std::optional<std::string> device;      // --device overrides run.device
  std::optional<std::string> output_dir;  // --output-dir overrides run.output_dir
  std::string restart_path;               // --restart <checkpoint>
  bool quiet = false;                     // no progress line (tests)
};

class Simulation {
 public:
  explicit Simulation(const RunOptions& opt);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs to run.t_end (or max_steps, or an interrupt). Returns true when t_end was reached.
  bool run();

  // Advances one step of size dt (the main loop's body without I/O); public for tests.
  void step(double dt);

  // Host copy of the particles, brought up to date from the backend.
  const ParticleStore& particles();
  double time() const { return time_; }
  long step_count() const { return step_; }
  const Conserved& initial_conserved() const { return conserved0_; }
  Conserved conserved();
  const std::string& output_dir() const { return run_.output_dir; }
  const StageTimer& timer() const { return timer_; }

  // Requests a checkpoint-and-stop at the end of the current step (signal handlers call this).
  static void request_stop();

 private:
  // Force evaluation at the current positions (order .. end_force).
  void compute_forces();
  // Output.
  void write_diagnostics_row();
  void write_snapshot_now();
  void write_checkpoint_now(const char* reason);
  double next_output_time() const;
  void log(const std::string& line) const;

  Config config_;
  RunParams run_;
  UnitSystem units_;
  SphParams sph_;
  EosParams eos_;
  GravityParams grav_;
  TimestepParams tstep_;
  Box box_;

  ParticleStore store_;
  std::unique_ptr<CoolingModel> cooling_;
  std::unique_ptr<StepBackend> backend_;
  StageTimer timer_;

  double time_ = 0.0;
  double t_start_ = 0.0;
  double dt_ = 0.0;  // next step's size from the criteria
  long step_ = 0;
  long next_snapshot_ = 0;  // index of the next snapshot file
  double radiated_ = 0.0;   // energy removed by cooling, code units
  Conserved conserved0_;
  bool quiet_ = false;
  std::FILE* energy_csv_ = nullptr;
};

}  // namespace mpsph
