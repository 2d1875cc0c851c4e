#include "sinks/sink_csv.hpp"

#include <algorithm>
#include <cstdio>

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

std::string sink_csv_units_scale(const UnitSystem& u, const char* name, const char* cgs_unit,
                                 const UnitDim& dim) {
  if (u.nbody) return "N-body units (G = 1): no cgs scale";
  char scale[320];
  std::snprintf(scale, sizeof scale,
                "code time = %.6e s, code length = %.6e cm, code mass = %.6e g, code %s = %.6e %s",
                u.time_cgs(), u.to_cgs({1, 0, 0}), u.to_cgs({0, 1, 0}), name, u.to_cgs(dim),
                cgs_unit);
  return scale;
}

std::string sinks_csv_header(const UnitSystem& u) {
  const std::string scale = sink_csv_units_scale(u, "velocity", "cm/s", {0, 0, 1});
  return std::string("# mpsph sink particles (type 5), one row per sink per energy.csv row\n") +
         "# units: " + scale +
         "; time in code time, mass and accreted_mass in code mass, x y z in code length, vx vy "
         "vz in code velocity, spin (angular momentum of the accreted gas about the sink) in "
         "code mass * code length * code velocity\n"
         "# accreted_mass: mass gained by accretion since the sink formed (its first particle "
         "not counted)\n"
         "time,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass\n";
}

void SinksCsv::open(const std::string& dir, const UnitSystem& units, double time, bool restart) {
  file_.open(dir + "/sinks.csv", sinks_csv_header(units), time, restart);
}

void SinksCsv::write(double time, const std::vector<SinkRow>& rows) {
  for (const SinkRow& r : rows)
    std::fprintf(file_.file(),
                 "%.17g,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                 time, static_cast<unsigned long long>(r.id), r.mass, r.pos.x, r.pos.y, r.pos.z,
                 r.vel.x, r.vel.y, r.vel.z, r.spin.x, r.spin.y, r.spin.z, r.accreted_mass);
  file_.end_rows();
}

}  // namespace mpsph
