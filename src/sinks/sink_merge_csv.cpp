#include "sinks/sink_merge_csv.hpp"

#include <cstdio>

#include "sinks/sink_csv.hpp"

namespace mpsph {

std::string sink_merges_csv_header(const UnitSystem& u) {
  const std::string scale = sink_csv_units_scale(u, "energy", "erg", {0, 1, 2});
  return std::string(
             "# mpsph sink-sink merges, one row per merge (docs/sinks.md); the sink id_merged "
             "merged into the sink id_kept (the lower id)\n") +
         "# units: " + scale +
         "; time in code time, mass_kept and mass_merged (just before the merge) in code mass, "
         "separation in code length, energy (the pair's binding energy, < 0) in code energy\n"
         "time,id_kept,id_merged,mass_kept,mass_merged,separation,energy\n";
}

std::string sink_merge_log_line(const SinkMergeEvent& e) {
  char line[400];
  std::snprintf(line, sizeof line,
                "t = %.9g: sink %llu (mass %.6g) merged into sink %llu (mass %.6g) at separation "
                "%.4g, pair energy %.4g (code units)",
                e.time, static_cast<unsigned long long>(e.rec.id_merged), e.rec.mass_merged,
                static_cast<unsigned long long>(e.rec.id_kept), e.rec.mass_kept, e.rec.separation,
                e.rec.energy);
  return line;
}

void SinkMergesCsv::open(const std::string& dir, const UnitSystem& units, double time,
                         bool restart) {
  file_.open(dir + "/sink_merges.csv", sink_merges_csv_header(units), time, restart);
}

void SinkMergesCsv::write(const std::vector<SinkMergeEvent>& events) {
  for (const SinkMergeEvent& e : events)
    std::fprintf(file_.file(), "%.17g,%llu,%llu,%.17g,%.17g,%.17g,%.17g\n", e.time,
                 static_cast<unsigned long long>(e.rec.id_kept),
                 static_cast<unsigned long long>(e.rec.id_merged), e.rec.mass_kept,
                 e.rec.mass_merged, e.rec.separation, e.rec.energy);
  file_.end_rows();
}

}  // namespace mpsph
