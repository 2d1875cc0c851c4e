#include "run/run_params.hpp"

#include "core/config.hpp"
#include "core/param_format.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

void add_run_params(Schema& s) {
  const RunParams d;
  std::vector<std::string> fields;
  for (const FieldInfo& f : particle_field_table())
    if (f.hdf5_name[0] != '\0') fields.push_back(f.hdf5_name);
  s.add({"run.t_end",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "end time of the run"});
  s.add({"run.output_dir",
         ParamType::String,
         d.output_dir,
         0,
         0,
         false,
         false,
         {},
         "",
         "directory for snapshots, logs, checkpoints (created if missing)"});
  s.add({"run.device",
         ParamType::Choice,
         d.device,
         0,
         0,
         false,
         false,
         {"auto", "cpu", "gpu"},
         "",
         "backend: auto uses the GPU when one is present"});
  s.add({"run.snapshot_times",
         ParamType::DoubleList,
         param_text(d.snapshot_times),
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "times at which snapshots are written (plus t = start)"});
  s.add({"run.snapshot_interval",
         ParamType::Double,
         param_text(d.snapshot_interval),
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "snapshot every this much time (0 = only snapshot_times)"});
  s.add({"run.snapshot_fields", ParamType::StringList, param_text(d.snapshot_fields), 0, 0, false,
         false, fields, "", "optional fields added to every snapshot"});
  s.add({"run.max_steps",
         ParamType::Int,
         param_text(d.max_steps),
         0,
         1e15,
         false,
         false,
         {},
         "",
         "stop after this many steps (0 = no limit)"});
  s.add({"run.diagnostics_every",
         ParamType::Int,
         param_text(d.diagnostics_every),
         1,
         1e15,
         false,
         false,
         {},
         "",
         "steps between rows of energy.csv"});
  s.add({"run.checkpoint_every_steps",
         ParamType::Int,
         param_text(d.checkpoint_every_steps),
         0,
         1e15,
         false,
         false,
         {},
         "",
         "write a checkpoint every this many steps (0 = off)"});
  s.add({"run.checkpoint_every_minutes",
         ParamType::Double,
         param_text(d.checkpoint_every_minutes),
         0,
         1e300,
         false,
         false,
         {},
         "min",
         "write a checkpoint every this many wall minutes (0 = off)"});
  s.add({"run.initial_snapshot",
         ParamType::Bool,
         param_text(d.initial_snapshot),
         0,
         0,
         false,
         false,
         {},
         "",
         "write snapshot_0000 of the initial state (off for benchmarks and runs too large to "
         "gather on one process; the later outputs keep their numbers)"});
  s.add(
      {"run.checkpoint_at_end",
       ParamType::Bool,
       param_text(d.checkpoint_at_end),
       0,
       0,
       false,
       false,
       {},
       "",
       "write a checkpoint when the run ends (t_end, run.max_steps); off for benchmarks, whose "
       "runs would otherwise end in writing every particle (a stop on request still writes one)"});
  s.add({"run.threads",
         ParamType::Int,
         param_text(d.threads),
         0,
         4096,
         false,
         false,
         {},
         "",
         "OpenMP threads (0 = OpenMP default / OMP_NUM_THREADS)"});
  s.add({"run.timing_sync",
         ParamType::Bool,
         param_text(d.timing_sync),
         0,
         0,
         false,
         false,
         {},
         "",
         "GPU: wait for every stage to finish so that timing.txt charges each stage its own time "
         "(one device synchronisation per stage; off, an asynchronous stage's time is charged to "
         "the next stage that waits)"});
}

RunParams run_params_from(const Config& c) {
  RunParams p;
  p.t_end = c.get_double("run.t_end");
  p.output_dir = c.get_string("run.output_dir");
  p.device = c.get_string("run.device");
  p.snapshot_times = c.get_double_list("run.snapshot_times");
  p.snapshot_interval = c.get_double("run.snapshot_interval");
  p.snapshot_fields = c.get_string_list("run.snapshot_fields");
  p.max_steps = c.get_int("run.max_steps");
  p.diagnostics_every = c.get_int("run.diagnostics_every");
  p.checkpoint_every_steps = c.get_int("run.checkpoint_every_steps");
  p.checkpoint_every_minutes = c.get_double("run.checkpoint_every_minutes");
  p.checkpoint_at_end = c.get_bool("run.checkpoint_at_end");
  p.initial_snapshot = c.get_bool("run.initial_snapshot");
  p.threads = static_cast<int>(c.get_int("run.threads"));
  p.timing_sync = c.get_bool("run.timing_sync");
  return p;
}

}  // namespace mpsph
