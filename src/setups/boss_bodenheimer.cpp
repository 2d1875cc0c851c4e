#include "setups/boss_bodenheimer.hpp"

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

const char* const kWhen = "setup.type=boss_bodenheimer";

}  // namespace

double perturbed_azimuth(double phi0, double amplitude) {
  // f(phi) = phi + A/2 sin 2phi - phi0 is increasing (f' = 1 + A cos 2phi >= 1 - A > 0) and
  // |phi - phi0| <= A/2, so Newton from phi0 converges; 50 iterations bound it for A near 1.
  double phi = phi0;
  for (int it = 0; it < 50; ++it) {
    const double f = phi + 0.5 * amplitude * std::sin(2.0 * phi) - phi0;
    const double step = f / (1.0 + amplitude * std::cos(2.0 * phi));
    phi -= step;
    if (std::fabs(step) < 1e-15) break;
  }
  return phi;
}

ParticleStore make_boss_bodenheimer(const BossBodenheimerParams& p) {
  if (!(p.amplitude >= 0.0 && p.amplitude < 1.0))
    throw Error("boss_bodenheimer: the perturbation amplitude must lie in [0, 1)");
  BallParams bp;
  bp.n = p.n;
  bp.sampling = p.sampling;
  bp.seed = p.seed;
  bp.glass_tile_n_side = p.glass_tile_n_side;
  const std::vector<Vec3d> ball = unit_ball(bp);
  ParticleStore s;
  s.resize(p.n);
  Vec3d mean{0, 0, 0};
  for (std::size_t i = 0; i < p.n; ++i) {
    const Vec3d& q = ball[i];
    const double rc = std::hypot(q.x, q.y);
    const double phi = perturbed_azimuth(std::atan2(q.y, q.x), p.amplitude);
    s.pos[i] = p.radius * Vec3d{rc * std::cos(phi), rc * std::sin(phi), q.z};
    mean += s.pos[i];
  }
  // The azimuthal map commutes with phi -> phi + pi, so it moves the centre of mass only by the
  // sampling scatter; put it back on the origin before the rotation is set.
  mean = (1.0 / double(p.n)) * mean;
  const Vec3d omega{0, 0, p.omega};
  for (std::size_t i = 0; i < p.n; ++i) {
    s.pos[i] -= mean;
    s.vel[i] = cross(omega, s.pos[i]);
    s.mass[i] = p.mass / double(p.n);
    s.id[i] = i + 1;
    s.type[i] = kGas;
    s.u[i] = p.u;
    s.h[i] = 0.0f;
  }
  return s;
}

void add_boss_bodenheimer_params(Schema& s) {
  s.add({"setup.n_particles",
         ParamType::Int,
         "30000",
         64,
         1e10,
         false,
         false,
         {},
         "",
         "number of gas particles",
         kWhen});
  s.add({"setup.mass",
         ParamType::Double,
         "1",
         0,
         1e300,
         true,
         false,
         {},
         "Msun",
         "cloud mass M (Boss & Bodenheimer 1979: 1 Msun)",
         kWhen});
  s.add({"setup.radius",
         ParamType::Double,
         "5e16",
         0,
         1e300,
         true,
         false,
         {},
         "cm",
         "cloud radius R (5e16 cm)",
         kWhen});
  s.add({"setup.omega",
         ParamType::Double,
         "7.2e-13",
         0,
         1e300,
         false,
         false,
         {},
         "rad/s",
         "solid-body angular velocity about z (7.2e-13 rad/s)",
         kWhen});
  s.add({"setup.perturbation",
         ParamType::Double,
         "0.1",
         0,
         1,
         false,
         true,
         {},
         "",
         "amplitude A of the m = 2 density perturbation rho0 (1 + A cos 2 phi) (0.1)",
         kWhen});
  s.add({"setup.seed",
         ParamType::Int,
         "1",
         0,
         1e18,
         false,
         false,
         {},
         "",
         "random seed of the glass or the random points: same seed, same particles",
         kWhen});
}

BossBodenheimerParams boss_bodenheimer_params_from(const Config& c) {
  const MolecularCloudInputs in = molecular_cloud_inputs(c, "boss_bodenheimer");
  const UnitSystem& units = in.units;
  BossBodenheimerParams p;
  p.n = std::size_t(c.get_int("setup.n_particles"));
  p.mass = c.get_double("setup.mass") * cgs::Msun / units.mass_cgs;
  p.radius = c.get_double("setup.radius") / units.length_cgs;
  p.omega = c.get_double("setup.omega") * units.time_cgs();
  p.amplitude = c.get_double("setup.perturbation");
  p.u = in.u0;
  p.sampling = ball_sampling_from_name(c.get_string("setup.sampling"));
  p.seed = uint64_t(c.get_int("setup.seed"));
  if (p.sampling == BallSampling::Glass)
    p.glass_tile_n_side = int(c.get_int("setup.glass_tile_n_side"));
  return p;
}

std::vector<std::string> boss_bodenheimer_summary(const BossBodenheimerParams& p,
                                                  const UnitSystem& u, double c_s,
                                                  int n_neighbours) {
  const double G = u.G;
  const double m = p.mass / double(p.n);
  const double rho = mean_density(p.mass, p.radius);
  const double t_ff = free_fall_time(rho, G);
  const double w = potential_energy_uniform(p.mass, p.radius, G);
  // Uniform sphere: I = 2/5 M R^2.
  const double e_rot = 0.5 * 0.4 * p.mass * p.radius * p.radius * p.omega * p.omega;
  const double rho_j = jeans_resolution_density(m, n_neighbours, c_s, G);
  const double g_cm3 = u.mass_cgs / std::pow(u.length_cgs, 3);
  std::vector<std::string> out;
  out.push_back("boss_bodenheimer: " + std::to_string(p.n) + " gas particles of " +
                format_number("%.4g", m * u.mass_cgs / cgs::Msun) +
                " Msun; M = " + format_number("%.5g", p.mass * u.mass_cgs / cgs::Msun) +
                " Msun, R = " + format_number("%.5g", p.radius * u.length_cgs) +
                " cm, rho0 = " + format_number("%.4g", rho * g_cm3) + " g/cm^3, Omega = " +
                format_number("%.4g", p.omega / u.time_cgs()) + " rad/s, m = 2 amplitude " +
                format_number("%.3g", p.amplitude) + " (particles shifted in azimuth)");
  out.push_back("free-fall time t_ff = sqrt(3 pi/(32 G rho0)) = " + format_number("%.5g", t_ff) +
                " code time = " + format_number("%.4g", t_ff * u.time_cgs()) + " s");
  out.push_back("alpha = 3/2 M c_s^2/|W| = " +
                format_number("%.4g", isothermal_thermal_energy(p.mass, c_s) / std::fabs(w)) +
                " (c_s = " + format_number("%.4g", c_s * u.velocity_cgs / cgs::km_s) +
                " km/s), beta = E_rot/|W| = " + format_number("%.4g", e_rot / std::fabs(w)));
  out.push_back(
      "Jeans resolution limit (M_J = 2 N_B m, Bate & Burkert 1997): rho = " +
      format_number("%.4g", rho_j) + " code density = " + format_number("%.4g", rho_j * g_cm3) +
      " g/cm^3; h there = " + format_number("%.4g", smoothing_length_at(rho_j, m, n_neighbours)) +
      " code length");
  return out;
}

}  // namespace mpsph
