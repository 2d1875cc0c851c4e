#include "sinks/sink_merge_csv.hpp"

#include <cerrno>

#include "core/error.hpp"
#include "io/durable_file.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

std::string sink_merges_csv_header(const UnitSystem& u) {
  char scale[320];
  if (u.nbody)
    std::snprintf(scale, sizeof scale, "N-body units (G = 1): no cgs scale");
  else
    std::snprintf(scale, sizeof scale,
                  "code time = %.6e s, code length = %.6e cm, code mass = %.6e g, code energy "
                  "= %.6e erg",
                  u.time_cgs(), u.to_cgs({1, 0, 0}), u.to_cgs({0, 1, 0}), u.to_cgs({0, 1, 2}));
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

SinkMergesCsv::~SinkMergesCsv() {
  if (f_) std::fclose(f_);
}

void SinkMergesCsv::open(const std::string& dir, const UnitSystem& units, double time,
                         bool restart) {
  path_ = dir + "/sink_merges.csv";
  f_ = open_module_csv(path_, sink_merges_csv_header(units), time, restart);
}

void SinkMergesCsv::write(const std::vector<SinkMergeEvent>& events) {
  for (const SinkMergeEvent& e : events)
    std::fprintf(f_, "%.17g,%llu,%llu,%.17g,%.17g,%.17g,%.17g\n", e.time,
                 static_cast<unsigned long long>(e.rec.id_kept),
                 static_cast<unsigned long long>(e.rec.id_merged), e.rec.mass_kept,
                 e.rec.mass_merged, e.rec.separation, e.rec.energy);
  if (std::fflush(f_) != 0 || std::ferror(f_))
    throw Error(write_error("cannot write '" + path_ + "'", path_, errno));
}

}  // namespace mpsph
