#include "setups/disk_galaxy_params.hpp"

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/units.hpp"
#include "setups/mmw_galaxy.hpp"

namespace mpsph {

namespace {

// One positive (or non-negative) double key.
void add_double(Schema& s, const std::string& path, double def, double min, bool min_exclusive,
                double max, const std::string& unit, const std::string& doc,
                const std::string& when) {
  s.add({path,
         ParamType::Double,
         param_text(def),
         min,
         max,
         min_exclusive,
         false,
         {},
         unit,
         doc,
         when});
}

void add_int(Schema& s, const std::string& path, long def, double min, double max,
             const std::string& doc, const std::string& when) {
  s.add({path, ParamType::Int, param_text(def), min, max, false, false, {}, "", doc, when});
}

}  // namespace

void add_disk_galaxy_params(Schema& s, const std::string& pre, const std::string& when) {
  const DiskGalaxyParams d;
  s.add({pre + "parametrisation",
         ParamType::Choice,
         "explicit",
         0,
         0,
         false,
         false,
         {"explicit", "mmw98"},
         "",
         "explicit: the masses and scale lengths below; mmw98: derived from V200 (or M200), c, "
         "spin and mass fractions (Mo, Mao & White 1998; the mmw.* keys)",
         when});
  const std::string given = pre + "parametrisation=explicit";
  const std::string mmw = pre + "parametrisation=mmw98";
  const Mmw98Inputs m;
  add_double(s, pre + "mmw.v200", 160.0, 0, false, 1e300, "code velocity",
             "virial velocity V200 (mean density 200 rho_crit; 0 = from mmw.m200)", mmw);
  add_double(s, pre + "mmw.m200", m.m200, 0, false, 1e300, "code mass",
             "virial mass M200 (0 = from mmw.v200; set exactly one of the two)", mmw);
  add_double(s, pre + "mmw.hubble", 70.0, 0, true, 1e4, "km/s/Mpc",
             "Hubble constant H of r200 = V200 / (10 H)", mmw);
  add_double(s, pre + "mmw.concentration", m.concentration, 1, false, 1e3, "",
             "NFW concentration c = r200 / r_s (the Hernquist halo matches its inner density)",
             mmw);
  add_double(s, pre + "mmw.spin", m.spin, 0, true, 1, "", "halo spin parameter lambda", mmw);
  add_double(s, pre + "mmw.disk_fraction", m.disk_fraction, 0, true, 1, "",
             "disk (stars + gas) mass / M200, m_d", mmw);
  add_double(s, pre + "mmw.bulge_fraction", m.bulge_fraction, 0, false, 1, "",
             "bulge mass / M200, m_b (0 = no bulge)", mmw);
  add_double(s, pre + "mmw.j_d", m.j_d, 0, false, 1, "",
             "disk angular momentum / halo angular momentum (0 = mmw.disk_fraction)", mmw);
  add_double(s, pre + "mmw.bulge_scale", m.bulge_scale, 0, true, 100, "",
             "bulge Hernquist scale radius in disk scale lengths", mmw);
  add_double(s, pre + "mmw.disk_height", m.disk_height, 0, true, 10, "",
             "stellar disk z0 in disk scale lengths", mmw);
  add_double(s, pre + "halo.mass", d.halo_mass, 0, true, 1e300, "code mass",
             "dark halo: mass of its particles (Hernquist profile inside halo.r_max)", given);
  add_double(s, pre + "halo.scale_radius", d.halo_scale_radius, 0, true, 1e300, "code length",
             "dark halo: Hernquist scale radius a", given);
  add_double(s, pre + "halo.r_max", d.halo_r_max, 0, true, 1e300, "code length",
             "dark halo: truncation radius of the sampling", when);
  add_int(s, pre + "halo.n", d.n_halo, 1, 1e10, "dark halo: particle number (type 1)", when);
  add_double(s, pre + "bulge.mass", d.bulge_mass, 0, false, 1e300, "code mass",
             "bulge: mass of its particles (Hernquist profile inside bulge.r_max; 0 = no bulge)",
             given);
  add_double(s, pre + "bulge.scale_radius", d.bulge_scale_radius, 0, true, 1e300, "code length",
             "bulge: Hernquist scale radius", given);
  add_double(s, pre + "bulge.r_max", d.bulge_r_max, 0, true, 1e300, "code length",
             "bulge: truncation radius of the sampling", when);
  add_int(s, pre + "bulge.n", d.n_bulge, 0, 1e10, "bulge: particle number (type 3)", when);
  add_double(s, pre + "disk.mass", d.disk_mass, 0, true, 1e300, "code mass",
             "disk: stellar + gas mass (exponential disks inside disk.r_max)", given);
  add_double(s, pre + "disk.gas_fraction", d.gas_fraction, 0, false, 1, "",
             "disk: gas fraction of the disk mass", when);
  add_double(s, pre + "disk.scale_length", d.disk_scale_length, 0, true, 1e300, "code length",
             "disk: exponential scale length R_d of the stellar disk", given);
  add_double(s, pre + "disk.scale_height", d.disk_scale_height, 0, true, 1e300, "code length",
             "disk: z0 of the stellar disk's sech^2(z/z0) vertical profile", given);
  add_double(s, pre + "disk.r_max", d.disk_r_max, 0, true, 1e300, "code length",
             "disk: truncation radius of stellar and gas disks (also the grid's radial extent)",
             when);
  add_int(s, pre + "disk.n", d.n_disk, 1, 1e10, "disk: stellar particle number (type 3)", when);
  add_int(s, pre + "gas.n", d.n_gas, 0, 1e10,
          "gas: particle number (type 0; 0 needs disk.gas_fraction 0)", when);
  add_double(s, pre + "gas.scale_length", d.gas_scale_length, 0, false, 1e300, "code length",
             "gas: exponential scale length (0 = disk.scale_length)", when);
  add_double(s, pre + "gas.temperature", d.gas_temperature, 0, true, 1e10, "K",
             "gas: temperature (isothermal vertical equilibrium, initial u)", when);
  add_double(s, pre + "gas.mu", d.gas_mu, 0, true, 100, "m_H",
             "gas: mean molecular weight of c_s^2 = k_B T/(mu m_H) (1.22 neutral, 0.59 ionised)",
             when);
  add_double(s, pre + "gas.fe_h", d.fe_h, -99, false, 1, "dex",
             "[Fe/H] of gas and stars (metal mass fractions scaled solar; -99 = metal-free)", when);
  add_double(s, pre + "gas.hydrogen_fraction", d.hydrogen_fraction, 0, true, 1, "",
             "hydrogen mass fraction X_H of gas and stars", when);
  add_int(s, pre + "seed", long(d.seed), 0, 1e18,
          "random seed (counter-based sampling: same seed, same particles)", when);
  add_int(s, pre + "grid.n_R", d.grid_n_R, 16, 1024,
          "radial nodes of the disks' potential grid (docs/galaxies.md)", when);
  add_int(s, pre + "grid.n_z", d.grid_n_z, 16, 1024,
          "vertical nodes (z >= 0) of the disks' potential grid", when);
}

DiskGalaxyParams disk_galaxy_params_from(const Config& c, const std::string& pre) {
  DiskGalaxyParams p;
  p.halo_r_max = c.get_double(pre + "halo.r_max");
  p.n_halo = c.get_int(pre + "halo.n");
  p.bulge_r_max = c.get_double(pre + "bulge.r_max");
  p.n_bulge = c.get_int(pre + "bulge.n");
  p.gas_fraction = c.get_double(pre + "disk.gas_fraction");
  if (c.get_string(pre + "parametrisation") == "explicit") {
    p.halo_mass = c.get_double(pre + "halo.mass");
    p.halo_scale_radius = c.get_double(pre + "halo.scale_radius");
    p.bulge_mass = c.get_double(pre + "bulge.mass");
    p.bulge_scale_radius = c.get_double(pre + "bulge.scale_radius");
    p.disk_mass = c.get_double(pre + "disk.mass");
    p.disk_scale_length = c.get_double(pre + "disk.scale_length");
    p.disk_scale_height = c.get_double(pre + "disk.scale_height");
  } else {
    const UnitSystem u = UnitSystem::from_config(c);
    if (u.nbody)
      throw Error(c.origin(pre + "parametrisation") + ": " + pre +
                  "parametrisation mmw98 needs physical units (units.length, units.mass, "
                  "units.velocity), not G = 1");
    Mmw98Inputs m;
    m.v200 = c.get_double(pre + "mmw.v200");
    m.m200 = c.get_double(pre + "mmw.m200");
    m.concentration = c.get_double(pre + "mmw.concentration");
    m.spin = c.get_double(pre + "mmw.spin");
    m.disk_fraction = c.get_double(pre + "mmw.disk_fraction");
    m.bulge_fraction = c.get_double(pre + "mmw.bulge_fraction");
    m.j_d = c.get_double(pre + "mmw.j_d");
    m.bulge_scale = c.get_double(pre + "mmw.bulge_scale");
    m.disk_height = c.get_double(pre + "mmw.disk_height");
    // H in code units: km/s/Mpc -> 1/s -> 1/code time
    const double H = c.get_double(pre + "mmw.hubble") * cgs::km_s / (1e3 * cgs::kpc) * u.time_cgs();
    const Mmw98Galaxy g = solve_mmw98(m, u.G, H);
    apply_mmw98(g, p);
    p.derivation = mmw98_summary(g, u.length_cgs / cgs::kpc, u.mass_cgs / cgs::Msun,
                                 u.velocity_cgs / cgs::km_s);
  }
  p.disk_r_max = c.get_double(pre + "disk.r_max");
  p.n_disk = c.get_int(pre + "disk.n");
  p.n_gas = c.get_int(pre + "gas.n");
  p.gas_scale_length = c.get_double(pre + "gas.scale_length");
  p.gas_temperature = c.get_double(pre + "gas.temperature");
  p.gas_mu = c.get_double(pre + "gas.mu");
  p.fe_h = c.get_double(pre + "gas.fe_h");
  p.hydrogen_fraction = c.get_double(pre + "gas.hydrogen_fraction");
  p.seed = uint64_t(c.get_int(pre + "seed"));
  p.grid_n_R = int(c.get_int(pre + "grid.n_R"));
  p.grid_n_z = int(c.get_int(pre + "grid.n_z"));
  return p;
}

}  // namespace mpsph
