#include "sinks/sink_csv.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

std::vector<SinkRow> sink_rows(const ParticleView& p) {
  std::vector<SinkRow> rows;
  for (std::size_t i = 0; i < p.n; ++i)
    if (p.type[i] == kSink)
      rows.push_back({p.id[i], p.mass[i], p.pos[i], p.vel[i], p.spin[i], p.accreted_mass[i]});
  std::sort(rows.begin(), rows.end(),
            [](const SinkRow& a, const SinkRow& b) { return a.id < b.id; });
  return rows;
}

std::string sinks_csv_header(const UnitSystem& u) {
  char scale[320];
  if (u.nbody)
    std::snprintf(scale, sizeof scale, "N-body units (G = 1): no cgs scale");
  else
    std::snprintf(scale, sizeof scale,
                  "code time = %.6e s, code length = %.6e cm, code mass = %.6e g, code velocity "
                  "= %.6e cm/s",
                  u.time_cgs(), u.to_cgs({1, 0, 0}), u.to_cgs({0, 1, 0}), u.to_cgs({0, 0, 1}));
  return std::string("# mpsph sink particles (type 5), one row per sink per energy.csv row\n") +
         "# units: " + scale +
         "; time in code time, mass and accreted_mass in code mass, x y z in code length, vx vy "
         "vz in code velocity, spin (angular momentum of the accreted gas about the sink) in "
         "code mass * code length * code velocity\n"
         "# accreted_mass: mass gained by accretion since the sink formed (its first particle "
         "not counted)\n"
         "time,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass\n";
}

SinksCsv::~SinksCsv() {
  if (f_) std::fclose(f_);
}

void SinksCsv::open(const std::string& dir, const UnitSystem& units, double time, bool restart) {
  path_ = dir + "/sinks.csv";
  f_ = open_module_csv(path_, sinks_csv_header(units), time, restart);
}

void SinksCsv::write(double time, const std::vector<SinkRow>& rows) {
  for (const SinkRow& r : rows)
    std::fprintf(f_,
                 "%.17g,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                 time, static_cast<unsigned long long>(r.id), r.mass, r.pos.x, r.pos.y, r.pos.z,
                 r.vel.x, r.vel.y, r.vel.z, r.spin.x, r.spin.y, r.spin.z, r.accreted_mass);
  if (std::fflush(f_) != 0 || std::ferror(f_))
    throw Error(write_error("cannot write '" + path_ + "'", path_, errno));
}

}  // namespace mpsph
