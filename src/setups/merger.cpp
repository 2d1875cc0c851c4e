#include "setups/merger.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "io/snapshot.hpp"
#include "setups/disk_galaxy.hpp"
#include "setups/sphere_sampling.hpp"

namespace mpsph {

KeplerStart kepler_start(double mu, double r0, double rp, double e) {
  if (!(mu > 0) || !(r0 > 0) || !(rp > 0) || !(e > 0))
    throw Error("merger: G M, separation, pericentre and eccentricity must be positive");
  if (r0 < rp) throw Error("merger: the initial separation is below the pericentre distance");
  if (e < 1 && r0 > rp * (1 + e) / (1 - e))
    throw Error("merger: the initial separation lies beyond the apocentre r_p (1+e)/(1-e)");
  const double v2 = mu * (2.0 / r0 - (1.0 - e) / rp);
  const double vt = std::sqrt(mu * rp * (1.0 + e)) / r0;
  const double vr = -std::sqrt(std::fmax(v2 - vt * vt, 0.0));
  return {{r0, 0.0, 0.0}, {vr, vt, 0.0}};
}

Vec3d spin_rotate(const Vec3d& v, double t, double p) {
  // Ry(t): x' = x cos t + z sin t, z' = -x sin t + z cos t; then Rz(p).
  const double x1 = v.x * std::cos(t) + v.z * std::sin(t),
               z1 = -v.x * std::sin(t) + v.z * std::cos(t);
  return {x1 * std::cos(p) - v.y * std::sin(p), x1 * std::sin(p) + v.y * std::cos(p), z1};
}

namespace {

void append(ParticleStore& a, const ParticleStore& b) {
#define MPSPH_APPEND(name, ...) a.name.insert(a.name.end(), b.name.begin(), b.name.end());
  MPSPH_PARTICLE_FIELDS(MPSPH_APPEND)
#undef MPSPH_APPEND
}

ParticleStore load_galaxy(const MergerGalaxy& g, const UnitSystem& units, double gamma,
                          uint64_t id_offset, int galaxy_id, bool verbose) {
  ParticleStore s;
  if (g.path.empty()) {
    const DiskGalaxyModel m = build_disk_galaxy_model(g.params, units);
    if (verbose) std::printf("merger galaxy %d:\n%s", galaxy_id, disk_profile_table(m).c_str());
    s = sample_disk_galaxy(m, gamma, id_offset, galaxy_id);
  } else {
    s = read_snapshot(g.path);
    for (std::size_t i = 0; i < s.size(); ++i) {
      s.id[i] += id_offset;
      s.galaxy_id[i] = galaxy_id;
    }
  }
  remove_centre_of_mass(s);
  const double t = g.theta_deg * cgs::kPi / 180.0, p = g.phi_deg * cgs::kPi / 180.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.pos[i] = spin_rotate(s.pos[i], t, p);
    s.vel[i] = spin_rotate(s.vel[i], t, p);
  }
  return s;
}

double total_mass(const ParticleStore& s) {
  double m = 0.0;
  for (double x : s.mass) m += x;
  return m;
}

}  // namespace

ParticleStore make_merger(const MergerParams& p, const UnitSystem& units, double gamma,
                          bool verbose) {
  ParticleStore g1 = load_galaxy(p.galaxy[0], units, gamma, 0, 1, verbose);
  const uint64_t offset = g1.id.empty() ? 0 : *std::max_element(g1.id.begin(), g1.id.end());
  ParticleStore g2 = load_galaxy(p.galaxy[1], units, gamma, offset, 2, verbose);
  const double M1 = total_mass(g1), M2 = total_mass(g2), M = M1 + M2;
  const KeplerStart k = kepler_start(units.G * M, p.separation, p.pericentre, p.eccentricity);
  for (std::size_t i = 0; i < g1.size(); ++i) {
    g1.pos[i] -= (M2 / M) * k.dx;
    g1.vel[i] -= (M2 / M) * k.dv;
  }
  for (std::size_t i = 0; i < g2.size(); ++i) {
    g2.pos[i] += (M1 / M) * k.dx;
    g2.vel[i] += (M1 / M) * k.dv;
  }
  if (verbose) {
    const double V = units.velocity_cgs / cgs::km_s;
    std::printf(
        "merger orbit: M1 = %.4g, M2 = %.4g (code mass), separation %.4g, pericentre %.4g (code "
        "length), e = %.3g; relative velocity v_r = %.2f km/s, v_t = %.2f km/s\n",
        M1, M2, p.separation, p.pericentre, p.eccentricity, k.dv.x * V, k.dv.y * V);
  }
  append(g1, g2);
  return g1;
}

void add_merger_params(Schema& s) {
  const std::string when = "setup.type=merger";
  const MergerParams d;
  s.add({"setup.separation",
         ParamType::Double,
         param_text(d.separation),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "initial distance of the two galaxies' centres",
         when});
  s.add({"setup.pericentre",
         ParamType::Double,
         param_text(d.pericentre),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "pericentre distance of the point-mass orbit",
         when});
  s.add({"setup.eccentricity",
         ParamType::Double,
         param_text(d.eccentricity),
         0,
         1e6,
         true,
         false,
         {},
         "",
         "orbit eccentricity (1 = parabolic)",
         when});
  for (int g = 1; g <= 2; ++g) {
    const std::string pre = "setup.galaxy" + std::to_string(g) + ".";
    s.add({pre + "source",
           ParamType::Choice,
           "generate",
           0,
           0,
           false,
           false,
           {"generate", "file"},
           "",
           "galaxy " + std::to_string(g) + ": from the disk-galaxy generator or an IC file",
           when});
    s.add({pre + "path",
           ParamType::String,
           std::nullopt,
           0,
           0,
           false,
           false,
           {},
           "",
           "HDF5 IC file of the galaxy (e.g. written by `mpsph ics`)",
           pre + "source=file"});
    s.add({pre + "spin_theta",
           ParamType::Double,
           "0",
           -360,
           360,
           false,
           false,
           {},
           "degree",
           "polar angle of the disk's spin from the orbit's angular momentum (+z)",
           when});
    s.add({pre + "spin_phi",
           ParamType::Double,
           "0",
           -360,
           360,
           false,
           false,
           {},
           "degree",
           "azimuth of the disk's spin from +x (the line from galaxy 1 to galaxy 2)",
           when});
    add_disk_galaxy_params(s, pre, pre + "source=generate");
  }
}

MergerParams merger_params_from(const Config& c) {
  MergerParams p;
  p.separation = c.get_double("setup.separation");
  p.pericentre = c.get_double("setup.pericentre");
  p.eccentricity = c.get_double("setup.eccentricity");
  for (int g = 0; g < 2; ++g) {
    const std::string pre = "setup.galaxy" + std::to_string(g + 1) + ".";
    MergerGalaxy& mg = p.galaxy[g];
    if (c.get_string(pre + "source") == "file") {
      mg.path = c.get_string(pre + "path");
    } else {
      mg.params = disk_galaxy_params_from(c, pre);
      // Galaxy 2 gets its own realisation: its ids (and so its draws) differ from galaxy 1's.
    }
    mg.theta_deg = c.get_double(pre + "spin_theta");
    mg.phi_deg = c.get_double(pre + "spin_phi");
  }
  return p;
}

}  // namespace mpsph
