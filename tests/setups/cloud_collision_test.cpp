// The cloud-collision initial conditions (setups/cloud_collision.hpp): masses, centres, bulk
// velocities, the rho ~ 1/r profile, energies and rotation measured from the particles, and the
// setup keys.
#include "setups/cloud_collision.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "core/units.hpp"
#include "gravity/direct_gravity.hpp"
#include "setups/cloud_scales.hpp"
#include "setups/initial_conditions.hpp"
#include "setups/setup_schema_support.hpp"
#include "sph/eos_params.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

constexpr double kG = 4.300917e-3;  // pc (km/s)^2 / Msun

// Potential energy of particles [first, first + n), unsoftened direct sum in double.
double potential_energy(const ParticleStore& s, std::size_t first, std::size_t n, double G) {
  std::vector<Vec3d> pos(s.pos.begin() + long(first), s.pos.begin() + long(first + n));
  std::vector<double> mass(s.mass.begin() + long(first), s.mass.begin() + long(first + n));
  const std::vector<float> eps(n, 0.0f);
  std::vector<Vec3d> acc(n);
  std::vector<double> pot(n);
  direct_gravity_double({pos.data(), mass.data(), eps.data(), n}, SofteningKernel::Plummer, G, 0, n,
                        acc.data(), pot.data());
  double w = 0;
  for (std::size_t i = 0; i < n; ++i) w += 0.5 * mass[i] * pot[i];
  return w;
}

struct SlopeFit {
  double slope, sigma;
};

// Weighted least-squares slope of ln(rho) against ln(r) in 10 logarithmic shells between
// r_lo and r_hi around `centre` (particles [first, first + n)); Poisson weights n_k per shell. For
// a power law the shell mean density sits at a fixed multiple of the geometric bin centre, so the
// slope is unbiased.
SlopeFit density_slope(const ParticleStore& s, std::size_t first, std::size_t n, Vec3d centre,
                       double r_lo, double r_hi) {
  const int bins = 10;
  std::vector<double> count(bins, 0.0);
  const double l0 = std::log(r_lo), dl = (std::log(r_hi) - l0) / bins;
  for (std::size_t i = first; i < first + n; ++i) {
    const double r = norm(s.pos[i] - centre);
    const int k = int(std::floor((std::log(r) - l0) / dl));
    if (r > 0 && k >= 0 && k < bins) count[std::size_t(k)] += 1;
  }
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int k = 0; k < bins; ++k) {
    const double r1 = std::exp(l0 + k * dl), r2 = std::exp(l0 + (k + 1) * dl);
    const double vol = 4.0 / 3.0 * cgs::kPi * (r2 * r2 * r2 - r1 * r1 * r1);
    const double x = 0.5 * (std::log(r1) + std::log(r2)), y = std::log(count[std::size_t(k)] / vol);
    const double w = count[std::size_t(k)];  // 1/sigma^2 of ln(count) = n_k
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  return {(sw * sxy - sx * sy) / det, std::sqrt(sw / det)};
}

CloudCollisionParams base_params(BallSampling sampling, std::size_t n) {
  CloudCollisionParams p;
  p.n_per_cloud = n;
  p.sampling = sampling;
  p.glass_tile_n_side = 10;
  p.seed = 5;
  p.impact_parameter = 1.5;
  p.gap = 0.4;
  p.u = 0.1;
  return p;
}

}  // namespace

TEST_CASE("cloud collision: masses, centres, bulk velocities, impact parameter, ids",
          "[setups][cloud_collision]") {
  const CloudCollisionParams p = base_params(BallSampling::Random, 2000);
  const ParticleStore s = make_cloud_collision(p);
  REQUIRE(s.size() == 2 * p.n_per_cloud);
  const std::size_t n = p.n_per_cloud;
  double mass[2] = {0, 0};
  Vec3d mx[2] = {{0, 0, 0}, {0, 0, 0}}, mv[2] = {{0, 0, 0}, {0, 0, 0}};
  double r_max = 0, x_max0 = -1e300, x_min1 = 1e300;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int k = i < n ? 0 : 1;
    CHECK(s.id[i] == i + 1);
    CHECK(s.type[i] == kGas);
    CHECK(s.u[i] == p.u);
    mass[k] += s.mass[i];
    mx[k] += s.mass[i] * s.pos[i];
    mv[k] += s.mass[i] * s.vel[i];
    r_max = std::fmax(r_max, norm(s.pos[i] - cloud_centre(p, k)));
    if (k == 0) x_max0 = std::fmax(x_max0, s.pos[i].x);
    if (k == 1) x_min1 = std::fmin(x_min1, s.pos[i].x);
  }
  for (int k = 0; k < 2; ++k) {
    CHECK(mass[k] == Approx(p.cloud_mass).epsilon(1e-12));
    // Each cloud's centre of mass on its centre, its mean velocity the bulk +-v_rel/2 along x.
    CHECK(norm((1.0 / mass[k]) * mx[k] - cloud_centre(p, k)) < 1e-12 * p.cloud_radius);
    const Vec3d bulk{(k == 0 ? 0.5 : -0.5) * p.relative_speed, 0, 0};
    CHECK(norm((1.0 / mass[k]) * mv[k] - bulk) < 1e-12 * p.relative_speed);
  }
  // Relative velocity, impact parameter, separation; total momentum and centre of mass zero.
  const Vec3d dv = (1.0 / mass[0]) * mv[0] - (1.0 / mass[1]) * mv[1];
  CHECK(dv.x == Approx(p.relative_speed).epsilon(1e-12));
  CHECK(std::fabs(dv.y) + std::fabs(dv.z) < 1e-12 * p.relative_speed);
  CHECK(cloud_centre(p, 1).y - cloud_centre(p, 0).y == Approx(p.impact_parameter));
  CHECK(cloud_centre(p, 1).x - cloud_centre(p, 0).x == Approx(2 * p.cloud_radius + p.gap));
  CHECK(norm(mv[0] + mv[1]) < 1e-12 * p.cloud_mass * p.relative_speed);
  CHECK(norm(mx[0] + mx[1]) < 1e-12 * p.cloud_mass * p.cloud_radius);
  // Inside R up to the recentring (a random ball's mean is ~ R/sqrt(n) = 0.07 pc off), and the
  // surfaces apart by about the gap.
  CHECK(r_max < 1.05 * p.cloud_radius);
  CHECK(x_min1 - x_max0 > p.gap - 0.1 * p.cloud_radius);
}

TEST_CASE("cloud collision: rho ~ 1/r and the potential energy -2/3 G M^2/R from the particles",
          "[setups][cloud_collision]") {
  for (BallSampling sampling : {BallSampling::Random, BallSampling::Glass}) {
    const CloudCollisionParams p = base_params(sampling, 4096);
    const ParticleStore s = make_cloud_collision(p);
    const std::size_t n = p.n_per_cloud;
    const char* name = sampling == BallSampling::Glass ? "glass" : "random";
    for (int k = 0; k < 2; ++k) {
      // Slope between 0.1 R and 0.95 R (inside 0.1 R: 1% of the particles; the outer 5%
      // avoids the recentring shift at the edge).
      const SlopeFit f = density_slope(s, std::size_t(k) * n, n, cloud_centre(p, k),
                                       0.1 * p.cloud_radius, 0.95 * p.cloud_radius);
      const double w = potential_energy(s, std::size_t(k) * n, n, kG);
      const double w_exact = potential_energy_r_inverse(p.cloud_mass, p.cloud_radius, kG);
      // W of n independent points is a U-statistic: E[W_n] = W (1 - 1/n), relative sigma
      // sqrt(4 Var(psi)/E[psi]^2 / n) with psi(r) ~ 2 - r/R the potential of the rho ~ 1/r
      // sphere and r/R of density 2x: Var/E^2 = (1/18)/(16/9) = 1/32, so 0.354/sqrt(n). A glass
      // is sub-Poisson; its correlation hole makes |W| smaller by ~ n^(-2/3) (0.4%), inside
      // the same bound.
      const double sigma_w = std::sqrt(4.0 / 32.0 / double(n)) * std::fabs(w_exact);
      std::printf(
          "cloud collision (%s, cloud %d): d ln rho/d ln r = %.4f +- %.4f (Poisson), W = %.2f "
          "(continuum %.2f x (1 - 1/n) = %.2f, sigma %.2f)\n",
          name, k, f.slope, f.sigma, w, w_exact, w_exact * (1 - 1.0 / n), sigma_w);
      // 4 sigma of the Poisson counts; the glass has far smaller count noise.
      CHECK(std::fabs(f.slope + 1.0) < 4.0 * f.sigma);
      CHECK(std::fabs(w - w_exact * (1.0 - 1.0 / double(n))) < 4.0 * sigma_w);
      // Virial ratio of the isothermal gas: E_th/|W| = 3/2 M c_s^2/|W|; with c_s^2 = 2/3 u
      // (gamma = 5/3) the particles carry E_th = M u. Its error is W's.
      const double c_s = std::sqrt(2.0 / 3.0 * p.u);
      const double alpha = isothermal_thermal_energy(p.cloud_mass, c_s) / std::fabs(w);
      const double alpha_exact = isothermal_thermal_energy(p.cloud_mass, c_s) / std::fabs(w_exact);
      CHECK(std::fabs(alpha / alpha_exact - 1.0) < 4.0 * sigma_w / std::fabs(w_exact) + 1.0 / n);
    }
  }
}

TEST_CASE("cloud collision: rotation by beta = E_rot/|W|, counter-rotating spins",
          "[setups][cloud_collision]") {
  CloudCollisionParams p = base_params(BallSampling::Random, 4096);
  const double beta = 0.05;
  const double w = cloud_omega_for_beta(beta, p.cloud_mass, p.cloud_radius, kG);
  p.omega_1 = {0, 0, w};
  p.omega_2 = {0, 0, -w};
  const ParticleStore s = make_cloud_collision(p);
  const std::size_t n = p.n_per_cloud;
  for (int k = 0; k < 2; ++k) {
    const Vec3d c = cloud_centre(p, k);
    const Vec3d bulk{(k == 0 ? 0.5 : -0.5) * p.relative_speed, 0, 0};
    double e_rot = 0, e_rot2 = 0, l_z = 0, i_z = 0;
    for (std::size_t i = std::size_t(k) * n; i < std::size_t(k + 1) * n; ++i) {
      const Vec3d x = s.pos[i] - c, v = s.vel[i] - bulk;
      const double e = 0.5 * s.mass[i] * norm2(v);
      e_rot += e, e_rot2 += e * e;
      l_z += s.mass[i] * (x.x * v.y - x.y * v.x);
      i_z += s.mass[i] * (x.x * x.x + x.y * x.y);
    }
    // Rigid rotation about the centre of mass: L_z = I_z omega_z to round-off, the sense given.
    const double omega_z = k == 0 ? w : -w;
    CHECK(l_z == Approx(i_z * omega_z).epsilon(1e-9));
    const double w_pot = potential_energy(s, std::size_t(k) * n, n, kG);
    const double ratio = e_rot / std::fabs(w_pot);
    // Noise: E_rot a sum of n independent terms (sample sigma), W as in the test above.
    const double sig_e = std::sqrt(e_rot2 - e_rot * e_rot / n) / e_rot;
    const double sig_w = std::sqrt(4.0 / 32.0 / double(n));
    const double sigma = beta * std::sqrt(sig_e * sig_e + sig_w * sig_w);
    std::printf("cloud collision rotation (cloud %d): E_rot/|W| = %.5f (set %.3f, sigma %.5f)\n", k,
                ratio, beta, sigma);
    CHECK(std::fabs(ratio - beta) < 4.0 * sigma + beta / n);
  }
}

namespace {

using test::setup_schema;

CloudCollisionParams params_of(const std::string& yaml) {
  return cloud_collision_params_from(Config::from_string(yaml, "cc.yml", setup_schema()));
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] { params_of(yaml); });
}

const char* kEos =
    "eos: {type: isothermal, sound_speed_from: temperature, temperature: 20, "
    "mu: 2.3}\n";

}  // namespace

TEST_CASE("cloud collision: keys in Msun, pc, km/s whatever the code units, and the refusals",
          "[setups][cloud_collision]") {
  // Code units au, Msun, km/s: lengths in au, omega in (km/s)/au.
  const double au_per_pc = cgs::pc / cgs::au;
  const CloudCollisionParams p = params_of(
      std::string("units: {system: physical, length: au, mass: Msun, velocity: km/s}\n") + kEos +
      "setup: {type: cloud_collision, n_per_cloud: 100, cloud_radius: 2, gap: 0.5, "
      "impact_parameter: 1, relative_speed: 4, rotation: omega, omega_1: [0, 0, 0.2], "
      "omega_2: [0.1, 0, 0], sampling: random}\n");
  CHECK(p.n_per_cloud == 100);
  CHECK(p.cloud_mass == Approx(2000));
  CHECK(p.cloud_radius == Approx(2 * au_per_pc).epsilon(1e-12));
  CHECK(p.gap == Approx(0.5 * au_per_pc).epsilon(1e-12));
  CHECK(p.impact_parameter == Approx(au_per_pc).epsilon(1e-12));
  CHECK(p.relative_speed == Approx(4));
  CHECK(p.omega_1.z == Approx(0.2 / au_per_pc).epsilon(1e-12));
  CHECK(p.omega_2.x == Approx(0.1 / au_per_pc).epsilon(1e-12));
  CHECK(p.sampling == BallSampling::Random);
  // u = c_s^2/(gamma - 1) of 20 K, mu 2.3: c_s = 0.2678 km/s.
  CHECK(std::sqrt(p.u * (2.0 / 3.0)) == Approx(0.2678).epsilon(1e-3));

  // beta: Omega = sqrt(4 G M beta/R^3) along the normalised axis.
  const CloudCollisionParams b = params_of(
      std::string("units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n") + kEos +
      "setup: {type: cloud_collision, rotation: beta, beta_1: 0.1, beta_2: 0.02, "
      "spin_axis_2: [0, 0, -2]}\n");
  const UnitSystem pc_units = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
  CHECK(b.omega_1.z == Approx(std::sqrt(4 * pc_units.G * 2000 * 0.1 / 27)).epsilon(1e-12));
  CHECK(b.omega_2.z == Approx(-std::sqrt(4 * pc_units.G * 2000 * 0.02 / 27)).epsilon(1e-12));
  CHECK(b.glass_tile_n_side == 16);

  const std::string pc = "units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n";
  CHECK(contains(error_of(std::string("units: {G: 1}\neos: {type: isothermal, sound_speed: 1}\n") +
                          "setup: {type: cloud_collision}\n"),
                 "needs physical units"));
  CHECK(contains(error_of(pc + "setup: {type: cloud_collision}\n"), "non-adiabatic eos.type"));
  CHECK(contains(error_of(pc + kEos +
                          "setup: {type: cloud_collision, rotation: omega, omega_1: [0, 1], "
                          "omega_2: [0, 0, 1]}\n"),
                 "three components"));
  CHECK(contains(error_of(pc + kEos + "setup: {type: cloud_collision, omega_1: [0, 0, 1]}\n"),
                 "setup.omega_1"));
  CHECK(contains(error_of(pc + kEos +
                          "setup: {type: cloud_collision, rotation: beta, beta_1: 0.1, "
                          "beta_2: 0.1, spin_axis_1: [0, 0, 0]}\n"),
                 "must not be zero"));
  CHECK(contains(error_of(pc + kEos +
                          "setup: {type: cloud_collision, sampling: random, "
                          "glass_tile_n_side: 8}\n"),
                 "setup.glass_tile_n_side"));
  CHECK(contains(error_of(pc + kEos + "setup: {type: cloud_collision, gap: -1}\n"), "setup.gap"));
}
