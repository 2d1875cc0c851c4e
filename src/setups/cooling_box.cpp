#include "setups/cooling_box.hpp"

#include <cmath>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

CoolingBoxSetup make_cooling_box(const CoolingBoxParams& p, const CoolingModel& model) {
  const UnitSystem& units = model.units();
  if (units.nbody)
    throw Error("cooling box: needs physical units (units.system: physical) to set n_H and T");
  if (p.n_side < 1 || !(p.box_size > 0) || !(p.n_H > 0) || !(p.temperature > 0) ||
      !(p.hydrogen_fraction > 0 && p.hydrogen_fraction <= 1))
    throw Error(
        "cooling box: n_side, box_size, n_H, temperature must be positive and "
        "hydrogen_fraction in (0, 1]");
  const double rho_unit = units.mass_cgs / std::pow(units.length_cgs, 3);
  const double rho = p.n_H * cgs::m_H / p.hydrogen_fraction / rho_unit;
  const double u = model.u_from_temperature(p.temperature);
  const double z_scale = std::pow(10.0, p.feh);  // 0 for -inf

  CoolingBoxSetup out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {p.box_size, p.box_size, p.box_size};
  const std::vector<Vec3d> x =
      cubic_lattice({0, 0, 0}, p.box_size / p.n_side, p.n_side, p.n_side, p.n_side);
  ParticleStore& s = out.particles;
  s.resize(x.size());
  const double m = rho * std::pow(p.box_size, 3) / double(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    s.pos[i] = x[i];
    s.vel[i] = {0, 0, 0};
    s.mass[i] = m;
    s.id[i] = i + 1;
    s.type[i] = kGas;
    s.u[i] = u;
    s.rho[i] = float(rho);
    s.h[i] = 0.0f;
    s.x_h[i] = p.hydrogen_fraction;
    s.z_fe[i] = p.hydrogen_fraction * kSolarFeToH * z_scale;
    s.z_o[i] = p.hydrogen_fraction * kSolarOToH * z_scale;
  }
  return out;
}

void add_cooling_box_params(Schema& s) {
  const CoolingBoxParams d;
  const std::string box = "setup.type=cooling_box";
  s.add({"setup.n_side",
         ParamType::Int,
         param_text(d.n_side),
         1,
         1000,
         false,
         false,
         {},
         "",
         "particles per box side (cubic lattice)",
         box});
  s.add({"setup.box_size",
         ParamType::Double,
         param_text(d.box_size),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "edge of the periodic box",
         box});
  s.add({"setup.n_H",
         ParamType::Double,
         param_text(d.n_H),
         0,
         1e30,
         true,
         false,
         {},
         "cm^-3",
         "hydrogen number density",
         box});
  s.add({"setup.temperature",
         ParamType::Double,
         param_text(d.temperature),
         0,
         1e10,
         true,
         false,
         {},
         "K",
         "initial temperature",
         box});
  s.add({"setup.fe_h",
         ParamType::Double,
         param_text(d.feh),
         -99,
         1,
         false,
         false,
         {},
         "dex",
         "[Fe/H] of the gas (metal mass fractions scaled solar; -99 is metal-free to 1e-96)",
         box});
  s.add({"setup.hydrogen_fraction",
         ParamType::Double,
         param_text(d.hydrogen_fraction),
         0,
         1,
         true,
         false,
         {},
         "",
         "hydrogen mass fraction X_H",
         box});
}

CoolingBoxParams cooling_box_params_from(const Config& c) {
  CoolingBoxParams p;
  p.n_side = int(c.get_int("setup.n_side"));
  p.box_size = c.get_double("setup.box_size");
  p.n_H = c.get_double("setup.n_H");
  p.temperature = c.get_double("setup.temperature");
  p.feh = c.get_double("setup.fe_h");
  p.hydrogen_fraction = c.get_double("setup.hydrogen_fraction");
  return p;
}

}  // namespace mpsph
