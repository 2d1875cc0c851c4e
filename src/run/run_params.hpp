// The `run:` section: end time, outputs, checkpoints, backend.
#pragma once

#include <string>
#include <vector>

namespace mpsph {

class Config;
class Schema;

struct RunParams {
  double t_end = 0.0;  // required (code time)
  std::string output_dir = "output";
  std::string device = "auto";
  std::vector<double> snapshot_times;        // code times; the step is shortened to hit them
  double snapshot_interval = 0.0;            // code time between snapshots (0 = only the list)
  std::vector<std::string> snapshot_fields;  // extra HDF5 fields written to snapshots
  long max_steps = 0;                        // 0 = no limit
  long diagnostics_every = 1;                // steps between energy/momentum rows
  long checkpoint_every_steps = 0;           // 0 = off
  double checkpoint_every_minutes = 30.0;    // wall minutes (0 = off)
  bool checkpoint_at_end = true;             // a checkpoint when the run ends
  bool initial_snapshot = true;              // snapshot_0000 of the initial state
  int threads = 0;                           // OpenMP threads (0 = OpenMP default)
  bool timing_sync = false;                  // GPU: wait for each stage (exact stage timing)
};

void add_run_params(Schema& schema);
RunParams run_params_from(const Config& cfg);

}  // namespace mpsph
