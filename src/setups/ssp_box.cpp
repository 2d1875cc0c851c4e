#include "setups/ssp_box.hpp"

#include <cmath>

#include "cooling/cooling_kern.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "setups/lattice.hpp"

namespace mpsph {

SspBoxSetup make_ssp_box(const SspBoxParams& p, const UnitSystem& units, double gamma) {
  if (units.nbody) throw Error("ssp box: needs physical units (units.system: physical)");
  const double rho_unit = units.mass_cgs / std::pow(units.length_cgs, 3);
  const double rho = p.n_H * cgs::m_H / p.hydrogen_fraction / rho_unit;
  const double u = cgs::k_B * p.temperature / ((gamma - 1.0) * p.mu * cgs::m_H) /
                   (units.velocity_cgs * units.velocity_cgs);
  const double z_scale = std::pow(10.0, p.feh);
  SspBoxSetup out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {p.box_size, p.box_size, p.box_size};
  const double d = p.box_size / p.n_side;
  const std::vector<Vec3d> x = cubic_lattice({0, 0, 0}, d, p.n_side, p.n_side, p.n_side);
  ParticleStore& s = out.particles;
  s.resize(x.size() + 1);
  const double m = rho * std::pow(p.box_size, 3) / double(x.size());
  const double z_fe = p.hydrogen_fraction * kSolarFeToH * z_scale;
  const double z_o = p.hydrogen_fraction * kSolarOToH * z_scale;
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
    s.z_fe[i] = z_fe;
    s.z_o[i] = z_o;
  }
  const std::size_t k = x.size();
  const double c = 0.5 * p.box_size + 0.25 * d;
  s.pos[k] = {c, c, c};
  s.vel[k] = {0, 0, 0};
  s.id[k] = k + 1;
  s.type[k] = kOldStar;
  s.initial_mass[k] = p.star_mass * cgs::Msun / units.mass_cgs;
  s.mass[k] = s.initial_mass[k];
  s.birth_time[k] = -p.star_age * cgs::Myr / units.time_cgs();
  s.birth_z[k] = p.star_metallicity;
  s.x_h[k] = p.hydrogen_fraction;
  s.z_fe[k] = z_fe;
  s.z_o[k] = z_o;
  return out;
}

void add_ssp_box_params(Schema& s) {
  const SspBoxParams d;
  const std::string box = "setup.type=ssp_box";
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
         "initial gas temperature",
         box});
  s.add({"setup.mu",
         ParamType::Double,
         param_text(d.mu),
         0,
         10,
         true,
         false,
         {},
         "",
         "mean molecular weight of the gas (sets u from T)",
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
         "[Fe/H] of the gas and the star (O and Fe scaled solar; -99 is metal-free to 1e-96)",
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
  s.add({"setup.star_mass_msun",
         ParamType::Double,
         param_text(d.star_mass),
         0,
         1e15,
         true,
         false,
         {},
         "Msun",
         "initial mass of the stellar population at the box centre",
         box});
  s.add({"setup.star_age_myr",
         ParamType::Double,
         param_text(d.star_age),
         0,
         2e4,
         false,
         false,
         {},
         "Myr",
         "age of the population at t = 0",
         box});
  s.add({"setup.star_metallicity",
         ParamType::Double,
         param_text(d.star_metallicity),
         0,
         1,
         false,
         true,
         {},
         "",
         "birth metal mass fraction Z of the population (lifetimes and yields)",
         box});
}

SspBoxParams ssp_box_params_from(const Config& c) {
  SspBoxParams p;
  p.n_side = int(c.get_int("setup.n_side"));
  p.box_size = c.get_double("setup.box_size");
  p.n_H = c.get_double("setup.n_H");
  p.temperature = c.get_double("setup.temperature");
  p.mu = c.get_double("setup.mu");
  p.feh = c.get_double("setup.fe_h");
  p.hydrogen_fraction = c.get_double("setup.hydrogen_fraction");
  p.star_mass = c.get_double("setup.star_mass_msun");
  p.star_age = c.get_double("setup.star_age_myr");
  p.star_metallicity = c.get_double("setup.star_metallicity");
  return p;
}

}  // namespace mpsph
