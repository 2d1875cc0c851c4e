#include "setups/disk_galaxy_params.hpp"

#include "core/config.hpp"
#include "core/param_format.hpp"

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
  add_double(s, pre + "halo.mass", d.halo_mass, 0, true, 1e300, "code mass",
             "dark halo: mass of its particles (Hernquist profile inside halo.r_max)", when);
  add_double(s, pre + "halo.scale_radius", d.halo_scale_radius, 0, true, 1e300, "code length",
             "dark halo: Hernquist scale radius a", when);
  add_double(s, pre + "halo.r_max", d.halo_r_max, 0, true, 1e300, "code length",
             "dark halo: truncation radius of the sampling", when);
  add_int(s, pre + "halo.n", d.n_halo, 1, 1e10, "dark halo: particle number (type 1)", when);
  add_double(s, pre + "bulge.mass", d.bulge_mass, 0, false, 1e300, "code mass",
             "bulge: mass of its particles (Hernquist profile inside bulge.r_max; 0 = no bulge)",
             when);
  add_double(s, pre + "bulge.scale_radius", d.bulge_scale_radius, 0, true, 1e300, "code length",
             "bulge: Hernquist scale radius", when);
  add_double(s, pre + "bulge.r_max", d.bulge_r_max, 0, true, 1e300, "code length",
             "bulge: truncation radius of the sampling", when);
  add_int(s, pre + "bulge.n", d.n_bulge, 0, 1e10, "bulge: particle number (type 3)", when);
  add_double(s, pre + "disk.mass", d.disk_mass, 0, true, 1e300, "code mass",
             "disk: stellar + gas mass (exponential disks inside disk.r_max)", when);
  add_double(s, pre + "disk.gas_fraction", d.gas_fraction, 0, false, 1, "",
             "disk: gas fraction of the disk mass", when);
  add_double(s, pre + "disk.scale_length", d.disk_scale_length, 0, true, 1e300, "code length",
             "disk: exponential scale length R_d of the stellar disk", when);
  add_double(s, pre + "disk.scale_height", d.disk_scale_height, 0, true, 1e300, "code length",
             "disk: z0 of the stellar disk's sech^2(z/z0) vertical profile", when);
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
  p.halo_mass = c.get_double(pre + "halo.mass");
  p.halo_scale_radius = c.get_double(pre + "halo.scale_radius");
  p.halo_r_max = c.get_double(pre + "halo.r_max");
  p.n_halo = c.get_int(pre + "halo.n");
  p.bulge_mass = c.get_double(pre + "bulge.mass");
  p.bulge_scale_radius = c.get_double(pre + "bulge.scale_radius");
  p.bulge_r_max = c.get_double(pre + "bulge.r_max");
  p.n_bulge = c.get_int(pre + "bulge.n");
  p.disk_mass = c.get_double(pre + "disk.mass");
  p.gas_fraction = c.get_double(pre + "disk.gas_fraction");
  p.disk_scale_length = c.get_double(pre + "disk.scale_length");
  p.disk_scale_height = c.get_double(pre + "disk.scale_height");
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
