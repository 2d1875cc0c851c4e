#include "setups/cloud_collision.hpp"

#include <cmath>
#include <cstdio>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/param_format.hpp"
#include "core/units.hpp"
#include "setups/cloud_scales.hpp"
#include "setups/molecular_cloud_inputs.hpp"

namespace mpsph {

namespace {

const char* const kWhen = "setup.type=cloud_collision";

// A 3-vector key (list of three doubles), scaled by `scale`.
Vec3d vector_key(const Config& c, const std::string& path, double scale) {
  const std::vector<double> v = c.get_double_list(path);
  if (v.size() != 3)
    throw Error(c.origin(path) + ": " + path + " must have three components [x, y, z], not " +
                std::to_string(v.size()));
  return {scale * v[0], scale * v[1], scale * v[2]};
}

}  // namespace

Vec3d cloud_centre(const CloudCollisionParams& p, int cloud) {
  const double s = cloud == 0 ? -1.0 : 1.0;
  // + 0.0: no -0 in printed positions.
  return {s * (p.cloud_radius + 0.5 * p.gap), s * 0.5 * p.impact_parameter + 0.0, 0.0};
}

ParticleStore make_cloud_collision(const CloudCollisionParams& p) {
  const std::size_t n = p.n_per_cloud;
  ParticleStore s;
  s.resize(2 * n);
  const double m = p.cloud_mass / double(n);
  for (int k = 0; k < 2; ++k) {
    BallParams bp;
    bp.n = n;
    bp.sampling = p.sampling;
    bp.seed = 2 * p.seed + uint64_t(k);
    bp.glass_tile_n_side = p.glass_tile_n_side;
    std::vector<Vec3d> x = unit_ball(bp);
    // r = R q^(3/2): M(<r) = M q^3 = M (r/R)^2. The map is not linear, so the stretched cloud's
    // centre of mass moves off the ball's by the sampling scatter: put it back on the centre, so
    // that the rotation is about the centre of mass and the clouds' momenta cancel exactly.
    Vec3d mean{0, 0, 0};
    for (Vec3d& q : x) {
      q = (p.cloud_radius * std::sqrt(norm(q))) * q;
      mean += q;
    }
    mean = (1.0 / double(n)) * mean;
    const Vec3d centre = cloud_centre(p, k);
    const Vec3d bulk{(k == 0 ? 0.5 : -0.5) * p.relative_speed, 0.0, 0.0};
    const Vec3d& omega = k == 0 ? p.omega_1 : p.omega_2;
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = std::size_t(k) * n + j;
      const Vec3d r = x[j] - mean;
      s.pos[i] = centre + r;
      s.vel[i] = bulk + cross(omega, r);
      s.mass[i] = m;
      s.id[i] = i + 1;
      s.type[i] = kGas;
      s.u[i] = p.u;
      s.h[i] = 0.0f;
    }
  }
  return s;
}

double cloud_omega_for_beta(double beta, double mass, double radius, double G) {
  return std::sqrt(4.0 * G * mass * beta / (radius * radius * radius));
}

void add_cloud_collision_params(Schema& s) {
  const CloudCollisionParams d;
  s.add({"setup.n_per_cloud",
         ParamType::Int,
         param_text(long(d.n_per_cloud)),
         64,
         1e9,
         false,
         false,
         {},
         "",
         "gas particles per cloud (the seed ran 4k ... 512k per cloud)",
         kWhen});
  s.add({"setup.cloud_mass",
         ParamType::Double,
         param_text(d.cloud_mass),
         0,
         1e300,
         true,
         false,
         {},
         "Msun",
         "mass M of each cloud",
         kWhen});
  s.add({"setup.cloud_radius",
         ParamType::Double,
         param_text(d.cloud_radius),
         0,
         1e300,
         true,
         false,
         {},
         "pc",
         "radius R of each cloud (rho ~ 1/r inside)",
         kWhen});
  s.add({"setup.relative_speed",
         ParamType::Double,
         param_text(d.relative_speed),
         0,
         1e300,
         false,
         false,
         {},
         "km/s",
         "relative speed of the clouds along x (each moves at half of it towards the other)",
         kWhen});
  s.add({"setup.gap",
         ParamType::Double,
         param_text(d.gap),
         0,
         1e300,
         false,
         false,
         {},
         "pc",
         "distance between the clouds' surfaces along x at t = 0 (0: touching when the impact "
         "parameter is 0); centres at x = -+(R + gap/2)",
         kWhen});
  s.add({"setup.impact_parameter",
         ParamType::Double,
         param_text(d.impact_parameter),
         0,
         1e300,
         false,
         false,
         {},
         "pc",
         "offset b of the centres along y (0: head-on)",
         kWhen});
  s.add({"setup.rotation",
         ParamType::Choice,
         "none",
         0,
         0,
         false,
         false,
         {"none", "omega", "beta"},
         "",
         "rigid rotation of each cloud: none | omega (angular velocity vectors setup.omega_1, "
         "setup.omega_2) | beta (ratios E_rot/|W| setup.beta_1, setup.beta_2 about the axes "
         "setup.spin_axis_1, setup.spin_axis_2)",
         kWhen});
  s.add({"setup.omega_1",
         ParamType::DoubleList,
         std::nullopt,
         -1e300,
         1e300,
         false,
         false,
         {},
         "km/s/pc",
         "angular velocity [x, y, z] of cloud 1 (the one starting at x < 0)",
         "setup.rotation=omega"});
  s.add({"setup.omega_2",
         ParamType::DoubleList,
         std::nullopt,
         -1e300,
         1e300,
         false,
         false,
         {},
         "km/s/pc",
         "angular velocity [x, y, z] of cloud 2 (x > 0)",
         "setup.rotation=omega"});
  s.add({"setup.beta_1",
         ParamType::Double,
         std::nullopt,
         0,
         1,
         false,
         false,
         {},
         "",
         "E_rot/|W| of cloud 1 (Omega = sqrt(4 G M beta / R^3) for rho ~ 1/r)",
         "setup.rotation=beta"});
  s.add({"setup.beta_2",
         ParamType::Double,
         std::nullopt,
         0,
         1,
         false,
         false,
         {},
         "",
         "E_rot/|W| of cloud 2",
         "setup.rotation=beta"});
  s.add({"setup.spin_axis_1",
         ParamType::DoubleList,
         "[0, 0, 1]",
         -1e300,
         1e300,
         false,
         false,
         {},
         "",
         "rotation axis of cloud 1 (normalised; its sign gives the sense)",
         "setup.rotation=beta"});
  s.add({"setup.spin_axis_2",
         ParamType::DoubleList,
         "[0, 0, 1]",
         -1e300,
         1e300,
         false,
         false,
         {},
         "",
         "rotation axis of cloud 2 ([0, 0, -1]: counter-rotating with cloud 1's default)",
         "setup.rotation=beta"});
  s.add({"setup.seed",
         ParamType::Int,
         "1",
         0,
         1e18,
         false,
         false,
         {},
         "",
         "random seed (cloud k = 0, 1 uses 2 seed + k): same seed, same particles",
         kWhen});
}

CloudCollisionParams cloud_collision_params_from(const Config& c) {
  const MolecularCloudInputs in = molecular_cloud_inputs(c, "cloud_collision");
  const UnitSystem& units = in.units;
  const double length = cgs::pc / units.length_cgs;
  const double velocity = cgs::km_s / units.velocity_cgs;
  CloudCollisionParams p;
  p.n_per_cloud = std::size_t(c.get_int("setup.n_per_cloud"));
  p.cloud_mass = c.get_double("setup.cloud_mass") * cgs::Msun / units.mass_cgs;
  p.cloud_radius = c.get_double("setup.cloud_radius") * length;
  p.relative_speed = c.get_double("setup.relative_speed") * velocity;
  p.gap = c.get_double("setup.gap") * length;
  p.impact_parameter = c.get_double("setup.impact_parameter") * length;
  const std::string rotation = c.get_string("setup.rotation");
  if (rotation == "omega") {
    p.omega_1 = vector_key(c, "setup.omega_1", velocity / length);
    p.omega_2 = vector_key(c, "setup.omega_2", velocity / length);
  } else if (rotation == "beta") {
    const std::string axis_key[2] = {"setup.spin_axis_1", "setup.spin_axis_2"};
    const double beta[2] = {c.get_double("setup.beta_1"), c.get_double("setup.beta_2")};
    for (int k = 0; k < 2; ++k) {
      const Vec3d axis = vector_key(c, axis_key[k], 1.0);
      if (!(norm(axis) > 0))
        throw Error(c.origin(axis_key[k]) + ": " + axis_key[k] + " must not be zero");
      const double w = cloud_omega_for_beta(beta[k], p.cloud_mass, p.cloud_radius, units.G);
      (k == 0 ? p.omega_1 : p.omega_2) = (w / norm(axis)) * axis;
    }
  }
  p.u = in.u0;
  p.sampling = ball_sampling_from_name(c.get_string("setup.sampling"));
  p.seed = uint64_t(c.get_int("setup.seed"));
  if (p.sampling == BallSampling::Glass)
    p.glass_tile_n_side = int(c.get_int("setup.glass_tile_n_side"));
  return p;
}

std::vector<std::string> cloud_collision_summary(const CloudCollisionParams& p, const UnitSystem& u,
                                                 double c_s, int n_neighbours) {
  const double G = u.G;
  const double pc = cgs::pc / u.length_cgs, msun = cgs::Msun / u.mass_cgs;
  const double kms = cgs::km_s / u.velocity_cgs, myr = cgs::Myr / u.time_cgs();
  const double m = p.cloud_mass / double(p.n_per_cloud);
  const double rho = mean_density(p.cloud_mass, p.cloud_radius);
  const double t_ff = free_fall_time(rho, G);
  const double w = potential_energy_r_inverse(p.cloud_mass, p.cloud_radius, G);
  const double e_th = isothermal_thermal_energy(p.cloud_mass, c_s);
  // E_rot = 1/2 I omega^2, I = M R^2/3 for rho ~ 1/r.
  const double i_r = p.cloud_mass * p.cloud_radius * p.cloud_radius / 3.0;
  const double beta1 = 0.5 * i_r * norm2(p.omega_1) / std::fabs(w);
  const double beta2 = 0.5 * i_r * norm2(p.omega_2) / std::fabs(w);
  const double rho_j = jeans_resolution_density(m, n_neighbours, c_s, G);
  const double h_j = smoothing_length_at(rho_j, m, n_neighbours);
  const double g_cm3 = u.mass_cgs / std::pow(u.length_cgs, 3);
  std::vector<std::string> out;
  out.push_back("cloud_collision: 2 clouds x " + std::to_string(p.n_per_cloud) +
                " gas particles of " + format_number("%.4g", m / msun) +
                " Msun; each M = " + format_number("%.5g", p.cloud_mass / msun) +
                " Msun, R = " + format_number("%.4g", p.cloud_radius / pc) +
                " pc, rho ~ 1/r, centres (" + format_number("%.4g", cloud_centre(p, 0).x / pc) +
                ", " + format_number("%.4g", cloud_centre(p, 0).y / pc) + ") and (" +
                format_number("%.4g", cloud_centre(p, 1).x / pc) + ", " +
                format_number("%.4g", cloud_centre(p, 1).y / pc) + ") pc, relative speed " +
                format_number("%.4g", p.relative_speed / kms) + " km/s along x");
  out.push_back("cloud free-fall time t_ff = sqrt(3 pi/(32 G rho_mean)) = " +
                format_number("%.5g", t_ff) + " code time = " + format_number("%.4g", t_ff / myr) +
                " Myr (3 t_ff = " + format_number("%.5g", 3 * t_ff) +
                " code time); crossing time 2R/v_rel = " +
                format_number("%.4g", 2 * p.cloud_radius / p.relative_speed / myr) + " Myr");
  out.push_back(
      "each cloud: W = -2/3 G M^2/R = " + format_number("%.5g", w) +
      " code energy, E_th/|W| = 3/2 M c_s^2/|W| = " + format_number("%.4g", e_th / std::fabs(w)) +
      " (c_s = " + format_number("%.4g", c_s / kms) +
      " km/s), E_rot/|W| = " + format_number("%.4g", beta1) + " and " +
      format_number("%.4g", beta2) + ", bulk E_kin/|W| = " +
      format_number("%.4g",
                    0.125 * p.cloud_mass * p.relative_speed * p.relative_speed / std::fabs(w)));
  out.push_back("Jeans resolution limit (M_J = 2 N_B m, Bate & Burkert 1997): rho = " +
                format_number("%.4g", rho_j) + " code density = " +
                format_number("%.4g", rho_j * g_cm3) + " g/cm^3 (mean cloud density " +
                format_number("%.4g", rho) + "); h there = " + format_number("%.4g", h_j) +
                " code length: a gravity softening matched to the resolution (it scales as 1/N)");
  return out;
}

}  // namespace mpsph
