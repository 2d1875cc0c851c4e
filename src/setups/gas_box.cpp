#include "setups/gas_box.hpp"

#include <cmath>

#include "cooling/cooling_kern.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/param_format.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

void add_gas_box_params(Schema& s, const std::string& condition, const GasBoxParams& d) {
  s.add({"setup.n_side",
         ParamType::Int,
         param_text(d.n_side),
         1,
         1000,
         false,
         false,
         {},
         "",
         "gas particles per box side (cubic lattice)",
         condition});
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
         condition});
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
         condition});
  s.add({"setup.temperature",
         ParamType::Double,
         param_text(d.temperature),
         0,
         1e10,
         true,
         false,
         {},
         "K",
         "initial gas temperature",
         condition});
  s.add({"setup.fe_h",
         ParamType::Double,
         param_text(d.feh),
         -99,
         1,
         false,
         false,
         {},
         "dex",
         "[Fe/H] of the gas (O and Fe mass fractions scaled solar; -99 is metal-free to 1e-96)",
         condition});
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
         condition});
}

void read_gas_box_params(const Config& c, GasBoxParams& p) {
  p.n_side = int(c.get_int("setup.n_side"));
  p.box_size = c.get_double("setup.box_size");
  p.n_H = c.get_double("setup.n_H");
  p.temperature = c.get_double("setup.temperature");
  p.feh = c.get_double("setup.fe_h");
  p.hydrogen_fraction = c.get_double("setup.hydrogen_fraction");
}

double gas_box_density(const GasBoxParams& p, const UnitSystem& units) {
  const double rho_unit = units.mass_cgs / std::pow(units.length_cgs, 3);
  return p.n_H * cgs::m_H / p.hydrogen_fraction / rho_unit;
}

GasBox make_gas_box(const GasBoxParams& p, const UnitSystem& units, double u, std::size_t extra) {
  const double rho = gas_box_density(p, units);
  const MetalFractions metals = scaled_solar_metals(p.hydrogen_fraction, p.feh);
  GasBox out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {p.box_size, p.box_size, p.box_size};
  const std::vector<Vec3d> x =
      cubic_lattice({0, 0, 0}, p.box_size / p.n_side, p.n_side, p.n_side, p.n_side);
  ParticleStore& s = out.particles;
  s.resize(x.size() + extra);
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
    s.z_fe[i] = metals.z_fe;
    s.z_o[i] = metals.z_o;
  }
  return out;
}

}  // namespace mpsph
