// sink_merges.csv: one row per sink-sink merge (sink_merge_kern.hpp), next to sinks.csv in the
// run's output directory. Comment lines ('# ') state the units, then the column line
//   time,id_kept,id_merged,mass_kept,mass_merged,separation,energy
// and the rows in the order of (time, id_kept); the values are those just before the merge. The
// merged sink's rows in sinks.csv end at the row before the merge; the survivor's mass and
// accreted_mass then include the merged sink's mass. On restart the rows after the checkpoint's
// time are dropped, as sinks.csv's.
#pragma once

#include <string>
#include <vector>

#include "core/units.hpp"
#include "io/module_csv.hpp"
#include "sinks/sink_merge_kern.hpp"

namespace mpsph {

// A merge with its time (code time).
struct SinkMergeEvent {
  double time;
  SinkMergeRecord rec;
};

// The comment lines and the column line.
std::string sink_merges_csv_header(const UnitSystem& units);

// The log line of a merge (code units).
std::string sink_merge_log_line(const SinkMergeEvent& e);

class SinkMergesCsv {
 public:
  SinkMergesCsv() = default;
  SinkMergesCsv(const SinkMergesCsv&) = delete;
  SinkMergesCsv& operator=(const SinkMergesCsv&) = delete;
  // As SinksCsv::open (sink_csv.hpp), for `dir`/sink_merges.csv. Throws mpsph::Error.
  void open(const std::string& dir, const UnitSystem& units, double time, bool restart);
  bool is_open() const { return file_.is_open(); }
  // One row per event, in the given order; flushed.
  void write(const std::vector<SinkMergeEvent>& events);

 private:
  ModuleCsvFile file_;
};

}  // namespace mpsph
