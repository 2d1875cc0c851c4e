// sinks.csv: one row per sink per diagnostics step (with energy.csv's rows), in the run's output
// directory. Comment lines ('# ') state the units, then the column line
//   time,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass
// and the rows, sinks in the order of their ids. On restart the rows after the checkpoint's time
// (written by a run killed after its last checkpoint) are dropped, as energy.csv's
// (run/energy_csv.hpp), so the file of a restarted run is that of an uninterrupted one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "core/units.hpp"
#include "core/vec3.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

struct SinkRow {
  uint64_t id;
  double mass;
  Vec3d pos, vel, spin;
  double accreted_mass;
};

// The sinks (type 5) of a host view, by id.
std::vector<SinkRow> sink_rows(const ParticleView& p);

// The comment lines and the column line.
std::string sinks_csv_header(const UnitSystem& units);

// The cgs scale of the sink CSV files' units: "code time = T s, code length = L cm, code mass =
// M g, code `name` = X `cgs_unit`" with X the cgs value of one code unit of dimension `dim`, or
// the N-body note (no cgs scale).
std::string sink_csv_units_scale(const UnitSystem& units, const char* name, const char* cgs_unit,
                                 const UnitDim& dim);

class SinksCsv {
 public:
  SinksCsv() = default;
  SinksCsv(const SinksCsv&) = delete;
  SinksCsv& operator=(const SinksCsv&) = delete;
  // A new run: creates `dir`/sinks.csv with its header. A restart at `time`: keeps the header and
  // the rows up to `time` (durably rewritten) and appends. Throws mpsph::Error.
  void open(const std::string& dir, const UnitSystem& units, double time, bool restart);
  bool is_open() const { return file_.is_open(); }
  // One row per sink at `time`; flushed, so a killed run loses no row.
  void write(double time, const std::vector<SinkRow>& rows);

 private:
  ModuleCsvFile file_;
};

}  // namespace mpsph
