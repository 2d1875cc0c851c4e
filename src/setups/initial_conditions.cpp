#include "setups/initial_conditions.hpp"

#include <cstdio>

#include "cooling/cooling.hpp"
#include "cooling/cooling_params.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/part_range.hpp"
#include "core/units.hpp"
#include "io/snapshot.hpp"
#include "setups/boss_bodenheimer.hpp"
#include "setups/cloud_collision.hpp"
#include "setups/cooling_box.hpp"
#include "setups/disk_galaxy.hpp"
#include "setups/evrard.hpp"
#include "setups/merger.hpp"
#include "setups/multiphase_box.hpp"
#include "setups/plummer.hpp"
#include "setups/sedov.hpp"
#include "setups/sod.hpp"
#include "setups/ssp_box.hpp"
#include "setups/sticky_clouds.hpp"
#include "sph/eos_params.hpp"

namespace mpsph {

void add_setup_params(Schema& s) {
  s.add({"setup.type",
         ParamType::Choice,
         std::nullopt,
         0,
         0,
         false,
         false,
         {"evrard", "sod", "sedov", "plummer", "cooling_box", "cloud_collision", "boss_bodenheimer",
          "disk_galaxy", "merger", "sticky_clouds", "ssp_box", "multiphase_box", "file"},
         "",
         "initial conditions: a built-in generator or an HDF5 file"});

  const EvrardParams e;
  const std::string evrard = "setup.type=evrard";
  s.add({"setup.n_particles",
         ParamType::Int,
         param_text(long(e.n_target)),
         100,
         1e10,
         false,
         false,
         {},
         "",
         "approximate particle number (cubic lattice, stretched)",
         evrard});
  s.add({"setup.mass",
         ParamType::Double,
         param_text(e.mass),
         0,
         1e300,
         true,
         false,
         {},
         "code mass",
         "total mass M",
         evrard});
  s.add({"setup.radius",
         ParamType::Double,
         param_text(e.radius),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "radius R",
         evrard});
  s.add({"setup.u0",
         ParamType::Double,
         param_text(e.u0),
         0,
         1e300,
         true,
         false,
         {},
         "code velocity^2",
         "initial specific internal energy (0.05 G M/R in Evrard 1988)",
         evrard});

  const SodParams d;
  const std::string sod = "setup.type=sod";
  s.add({"setup.nx_left",
         ParamType::Int,
         param_text(d.nx_left),
         2,
         4096,
         false,
         false,
         {},
         "",
         "particles along x in the dense half x < 1 (mean spacing 1/nx_left)",
         sod});
  s.add({"setup.ny_left",
         ParamType::Int,
         param_text(d.ny_left),
         2,
         4096,
         false,
         false,
         {},
         "",
         "particles along y and z in the dense half (box edge ny_left/nx_left)",
         sod});
  s.add({"setup.rho_left",
         ParamType::Double,
         param_text(d.rho_left),
         0,
         1e300,
         true,
         false,
         {},
         "code density",
         "left density",
         sod});
  s.add({"setup.p_left",
         ParamType::Double,
         param_text(d.p_left),
         0,
         1e300,
         true,
         false,
         {},
         "code pressure",
         "left pressure",
         sod});
  s.add({"setup.rho_right",
         ParamType::Double,
         param_text(d.rho_right),
         0,
         1e300,
         true,
         false,
         {},
         "code density",
         "right density ((rho_left/rho_right)^(1/3) must be an integer)",
         sod});
  s.add({"setup.p_right",
         ParamType::Double,
         param_text(d.p_right),
         0,
         1e300,
         true,
         false,
         {},
         "code pressure",
         "right pressure",
         sod});
  s.add({"setup.arrangement",
         ParamType::Choice,
         "glass",
         0,
         0,
         false,
         false,
         {"glass", "lattice"},
         "",
         "particle arrangement: glass cubes of side ny_left/nx_left tiled along x (nx_left a "
         "multiple of ny_left), or cubic lattices (biased plateau behind the rarefaction, "
         "docs/validation.md)",
         sod});
  s.add({"setup.seed",
         ParamType::Int,
         "1",
         0,
         1e18,
         false,
         false,
         {},
         "",
         "random seed of the glasses (same seed, same particles)",
         sod});

  const std::string plummer = "setup.type=plummer";
  s.add({"setup.n_particles",
         ParamType::Int,
         "10000",
         2,
         1e10,
         false,
         false,
         {},
         "",
         "number of particles (collisionless, type 1)",
         plummer});
  s.add({"setup.seed",
         ParamType::Int,
         "1",
         0,
         1e18,
         false,
         false,
         {},
         "",
         "random seed (counter-based sampling: same seed, same particles)",
         plummer});
  s.add({"setup.mass",
         ParamType::Double,
         "1",
         0,
         1e300,
         true,
         false,
         {},
         "code mass",
         "total mass M",
         plummer});
  s.add({"setup.scale_radius",
         ParamType::Double,
         param_text(kPlummerVirialScaleRadius),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "Plummer scale radius a (3 pi/16: virial radius 1, E = -1/4 for G = M = 1)",
         plummer});

  add_sedov_params(s);
  add_cooling_box_params(s);
  add_multiphase_box_params(s);
  add_ssp_box_params(s);
  add_cloud_collision_params(s);
  add_boss_bodenheimer_params(s);
  // The molecular-cloud setups start from a ball of equal-mass points (setups/ball_sampling.hpp).
  for (const char* type : {"cloud_collision", "boss_bodenheimer"})
    s.add({"setup.sampling",
           ParamType::Choice,
           "glass",
           0,
           0,
           false,
           false,
           {"glass", "random"},
           "",
           "particle arrangement of the cloud before it is shaped: relaxed glass (density scatter "
           "~1%, no lattice planes) or random points (Poisson noise)",
           std::string("setup.type=") + type});
  s.add({"setup.glass_tile_n_side",
         ParamType::Int,
         "16",
         6,
         64,
         false,
         false,
         {},
         "",
         "particles per side of the periodic glass cube tiled over the cloud (relaxed to 1% "
         "density scatter; 16: 4096 particles, a few seconds)",
         "setup.sampling=glass"});
  add_disk_galaxy_params(s, "setup.", "setup.type=disk_galaxy");
  add_merger_params(s);
  add_sticky_clouds_setup_params(s);

  s.add({"setup.path",
         ParamType::String,
         std::nullopt,
         0,
         0,
         false,
         false,
         {},
         "",
         "HDF5 file in the GADGET/SWIFT layout",
         "setup.type=file"});
}

namespace {

// gamma of the gas's initial u = c^2/(gamma - 1) (5/3 where the EOS has no gamma).
double gas_gamma(const Config& c) {
  return c.is_active("eos.gamma") ? c.get_double("eos.gamma") : 5.0 / 3.0;
}

}  // namespace

namespace {

EvrardParams evrard_params_from(const Config& c) {
  EvrardParams p;
  p.n_target = static_cast<std::size_t>(c.get_int("setup.n_particles"));
  p.mass = c.get_double("setup.mass");
  p.radius = c.get_double("setup.radius");
  p.u0 = c.get_double("setup.u0");
  return p;
}

}  // namespace

bool made_in_parts(const Config& c) {
  const std::string type = c.get_string("setup.type");
  return type == "evrard" || type == "disk_galaxy" || type == "file";
}

InitialState make_initial_state_part(const Config& c, std::size_t part, std::size_t parts) {
  if (!made_in_parts(c))
    throw Error("setup.type " + c.get_string("setup.type") + " is made in one piece");
  InitialState st;
  if (c.get_string("setup.type") == "file") {
    SnapshotMeta meta;
    st.file = c.get_string("setup.path");
    st.particles = read_snapshot_part(st.file, &meta, part, parts);
    st.box = meta.box;
    st.time = meta.time;
    st.datasets = std::move(meta.datasets);
    return st;
  }
  if (c.get_string("setup.type") == "disk_galaxy") {
    // Every part builds the model (the potential and the gas's vertical equilibrium on the grid)
    // and draws its particles; the first prints the profile table.
    const DiskGalaxyModel m =
        build_disk_galaxy_model(disk_galaxy_params_from(c, "setup."), UnitSystem::from_config(c));
    if (part == 0) std::fputs(disk_profile_table(m).c_str(), stdout);
    const PartRange r = part_range(disk_galaxy_particles(m), part, parts);
    st.particles = sample_disk_galaxy_range(m, gas_gamma(c), r.first, r.count);
    st.particles.sort_by_type();
    st.zero_momentum = true;
    return st;
  }
  st.particles = make_evrard(evrard_params_from(c), part, parts);
  return st;
}

InitialState make_initial_state(const Config& c) {
  const std::string type = c.get_string("setup.type");
  InitialState st;
  if (type == "evrard") {
    st.particles = make_evrard(evrard_params_from(c));
  } else if (type == "sod") {
    SodParams p;
    p.nx_left = static_cast<int>(c.get_int("setup.nx_left"));
    p.ny_left = static_cast<int>(c.get_int("setup.ny_left"));
    p.rho_left = c.get_double("setup.rho_left");
    p.p_left = c.get_double("setup.p_left");
    p.rho_right = c.get_double("setup.rho_right");
    p.p_right = c.get_double("setup.p_right");
    p.gamma = c.get_double("eos.gamma");
    p.glass = c.get_string("setup.arrangement") == "glass";
    p.seed = static_cast<uint64_t>(c.get_int("setup.seed"));
    SodSetup sod = make_sod(p);
    st.particles = std::move(sod.particles);
    st.box = sod.box;
  } else if (type == "sedov") {
    SedovSetup sedov = make_sedov(sedov_params_from(c));
    st.particles = std::move(sedov.particles);
    st.box = sedov.box;
  } else if (type == "plummer") {
    st.particles = make_plummer(static_cast<std::size_t>(c.get_int("setup.n_particles")),
                                static_cast<uint64_t>(c.get_int("setup.seed")),
                                c.get_double("setup.mass"), c.get_double("setup.scale_radius"),
                                true, kDarkMatter, UnitSystem::from_config(c).G);
  } else if (type == "cooling_box") {
    const CoolingModel model(cooling_params_from(c), UnitSystem::from_config(c));
    CoolingBoxSetup b = make_cooling_box(cooling_box_params_from(c), model);
    st.particles = std::move(b.particles);
    st.box = b.box;
  } else if (type == "multiphase_box") {
    const CoolingModel model(cooling_params_from(c), UnitSystem::from_config(c));
    MultiphaseBoxSetup b = make_multiphase_box(multiphase_box_params_from(c), model);
    st.particles = std::move(b.particles);
    st.box = b.box;
  } else if (type == "ssp_box") {
    SspBoxSetup b = make_ssp_box(ssp_box_params_from(c), UnitSystem::from_config(c), gas_gamma(c));
    st.particles = std::move(b.particles);
    st.box = b.box;
  } else if (type == "cloud_collision") {
    const CloudCollisionParams p = cloud_collision_params_from(c);
    st.particles = make_cloud_collision(p);
    st.notes =
        cloud_collision_summary(p, UnitSystem::from_config(c), eos_params_from(c).sound_speed,
                                int(c.get_int("sph.n_neighbours")));
  } else if (type == "boss_bodenheimer") {
    const BossBodenheimerParams p = boss_bodenheimer_params_from(c);
    st.particles = make_boss_bodenheimer(p);
    st.notes =
        boss_bodenheimer_summary(p, UnitSystem::from_config(c), eos_params_from(c).sound_speed,
                                 int(c.get_int("sph.n_neighbours")));
  } else if (type == "disk_galaxy") {
    const DiskGalaxyModel m =
        build_disk_galaxy_model(disk_galaxy_params_from(c, "setup."), UnitSystem::from_config(c));
    std::fputs(disk_profile_table(m).c_str(), stdout);
    st.particles = sample_disk_galaxy(m, gas_gamma(c));
  } else if (type == "merger") {
    st.particles = make_merger(merger_params_from(c), UnitSystem::from_config(c), gas_gamma(c));
  } else if (type == "sticky_clouds") {
    StickyCloudsSetup b = make_sticky_clouds(sticky_clouds_setup_params_from(c));
    st.particles = std::move(b.particles);
    st.box = b.box;
  } else if (type == "file") {
    SnapshotMeta meta;
    st.file = c.get_string("setup.path");
    st.particles = read_snapshot(st.file, &meta);
    st.box = meta.box;
    st.time = meta.time;
    st.datasets = std::move(meta.datasets);
  } else {
    throw Error("unknown setup.type '" + type + "'");
  }
  st.particles.sort_by_type();
  return st;
}

}  // namespace mpsph
