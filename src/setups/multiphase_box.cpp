#include "setups/multiphase_box.hpp"

#include <vector>

#include "cooling/cooling.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/rng.hpp"

namespace mpsph {

MultiphaseBoxSetup make_multiphase_box(const MultiphaseBoxParams& p, const CoolingModel& model) {
  const UnitSystem& units = model.units();
  if (units.nbody)
    throw Error("multiphase box: needs physical units (units.system: physical) to set n_H and T");
  if (p.n_side < 1 || !(p.box_size > 0) || !(p.n_H > 0) || !(p.temperature > 0) ||
      !(p.warm_temperature > 0) || p.n_clumps < 0 || !(p.clump_radius > 0) ||
      !(p.hydrogen_fraction > 0 && p.hydrogen_fraction <= 1))
    throw Error(
        "multiphase box: n_side, box_size, n_H, temperature, warm_temperature, clump_radius must "
        "be positive, n_clumps >= 0 and hydrogen_fraction in (0, 1]");
  MultiphaseBoxSetup b = make_gas_box(p, units, model.u_from_temperature(p.temperature));
  std::vector<Vec3d> centre(std::size_t(p.n_clumps));
  for (std::size_t c = 0; c < centre.size(); ++c)
    centre[c] = {p.box_size * random_uniform(c + 1, p.seed, kStreamSetup, 0),
                 p.box_size * random_uniform(c + 1, p.seed, kStreamSetup, 1),
                 p.box_size * random_uniform(c + 1, p.seed, kStreamSetup, 2)};
  const double u_warm = model.u_from_temperature(p.warm_temperature);
  const double r2 = p.clump_radius * p.clump_radius;
  ParticleStore& s = b.particles;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (const Vec3d& x : centre)
      if (norm2(min_image(s.pos[i] - x, b.box)) < r2) {
        s.u[i] = u_warm;
        break;
      }
  return b;
}

void add_multiphase_box_params(Schema& s) {
  const std::string when = "setup.type=multiphase_box";
  const MultiphaseBoxParams d;
  add_gas_box_params(s, when, d);
  s.add({"setup.warm_temperature",
         ParamType::Double,
         param_text(d.warm_temperature),
         0,
         1e10,
         true,
         false,
         {},
         "K",
         "temperature of the warm clumps (setup.temperature: the hot gas around them)",
         when});
  s.add({"setup.n_clumps",
         ParamType::Int,
         param_text(d.n_clumps),
         0,
         100000,
         false,
         false,
         {},
         "",
         "number of warm spheres, centres uniformly random in the box",
         when});
  s.add({"setup.clump_radius",
         ParamType::Double,
         param_text(d.clump_radius),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "radius of a warm sphere",
         when});
  s.add({"setup.seed",
         ParamType::Int,
         param_text(int(d.seed)),
         0,
         2147483647,
         false,
         false,
         {},
         "",
         "seed of the clump centres",
         when});
}

MultiphaseBoxParams multiphase_box_params_from(const Config& c) {
  MultiphaseBoxParams p;
  read_gas_box_params(c, p);
  p.warm_temperature = c.get_double("setup.warm_temperature");
  p.n_clumps = int(c.get_int("setup.n_clumps"));
  p.clump_radius = c.get_double("setup.clump_radius");
  p.seed = uint64_t(c.get_int("setup.seed"));
  return p;
}

}  // namespace mpsph
