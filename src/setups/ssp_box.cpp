#include "setups/ssp_box.hpp"

#include <cmath>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

SspBoxSetup make_ssp_box(const SspBoxParams& p, const UnitSystem& units, double gamma) {
  if (units.nbody) throw Error("ssp box: needs physical units (units.system: physical)");
  const double u = cgs::k_B * p.temperature / ((gamma - 1.0) * p.mu * cgs::m_H) /
                   (units.velocity_cgs * units.velocity_cgs);
  SspBoxSetup out = make_gas_box(p, units, u, 1);
  ParticleStore& s = out.particles;
  const std::size_t k = s.size() - 1;  // the star, after the gas
  const double d = p.box_size / p.n_side;
  const double z_fe = s.z_fe[0], z_o = s.z_o[0];  // the gas composition
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
  add_gas_box_params(s, box, d);
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
  read_gas_box_params(c, p);
  p.mu = c.get_double("setup.mu");
  p.star_mass = c.get_double("setup.star_mass_msun");
  p.star_age = c.get_double("setup.star_age_myr");
  p.star_metallicity = c.get_double("setup.star_metallicity");
  return p;
}

}  // namespace mpsph
