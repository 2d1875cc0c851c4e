// The Boss & Bodenheimer initial conditions (setups/boss_bodenheimer.hpp): mass, centre, rigid
// rotation, alpha and beta, and the m = 2 perturbation measured from the particles.
#include "setups/boss_bodenheimer.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/units.hpp"
#include "gravity/direct_gravity.hpp"
#include "setups/cloud_scales.hpp"

using namespace mpsph;

namespace {

// The published cloud in pc, Msun, km/s.
BossBodenheimerParams published(BallSampling sampling, std::size_t n) {
  const UnitSystem u = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
  BossBodenheimerParams p;
  p.n = n;
  p.mass = 1.0;
  p.radius = 5e16 / u.length_cgs;
  p.omega = 7.2e-13 * u.time_cgs();
  p.amplitude = 0.1;
  const double c_s = 0.166;  // km/s
  p.u = 1.5 * c_s * c_s;
  p.sampling = sampling;
  p.glass_tile_n_side = 10;
  p.seed = 4;
  return p;
}

double potential_energy(const ParticleStore& s, double G) {
  const std::vector<float> eps(s.size(), 0.0f);
  std::vector<Vec3d> acc(s.size());
  std::vector<double> pot(s.size());
  direct_gravity_double({s.pos.data(), s.mass.data(), eps.data(), s.size()},
                        SofteningKernel::Plummer, G, 0, s.size(), acc.data(), pot.data());
  double w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) w += 0.5 * s.mass[i] * pot[i];
  return w;
}

}  // namespace

TEST_CASE("boss-bodenheimer: the azimuthal map solves phi + A/2 sin 2phi = phi0",
          "[setups][boss_bodenheimer]") {
  double prev = -1e300;
  for (int k = -200; k <= 200; ++k) {
    const double phi0 = cgs::kPi * k / 200.0;
    const double phi = perturbed_azimuth(phi0, 0.1);
    CHECK(std::fabs(phi + 0.05 * std::sin(2 * phi) - phi0) < 1e-14);
    CHECK(phi > prev);  // monotonic: no particles cross
    prev = phi;
  }
  CHECK(perturbed_azimuth(0.7, 0.0) == 0.7);
  // Near A = 1 the slope 1 + A cos 2phi nearly vanishes at phi = pi/2; Newton still converges.
  const double phi = perturbed_azimuth(1.5, 0.99);
  CHECK(std::fabs(phi + 0.495 * std::sin(2 * phi) - 1.5) < 1e-12);
}

TEST_CASE("boss-bodenheimer: mass, centre, rigid rotation, alpha, beta and the m = 2 amplitude",
          "[setups][boss_bodenheimer]") {
  const UnitSystem u = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
  for (BallSampling sampling : {BallSampling::Random, BallSampling::Glass}) {
    const BossBodenheimerParams p = published(sampling, 8000);
    const ParticleStore s = make_boss_bodenheimer(p);
    REQUIRE(s.size() == p.n);
    const double n = double(p.n);
    double mass = 0, l_z = 0, i_z = 0, e_rot = 0, c2 = 0, s2 = 0, c1 = 0, c4 = 0, r_max = 0;
    double i_z2 = 0;
    Vec3d mx{0, 0, 0}, mv{0, 0, 0};
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3d& x = s.pos[i];
      const Vec3d& v = s.vel[i];
      const double m = s.mass[i];
      mass += m, mx += m * x, mv += m * v;
      l_z += m * (x.x * v.y - x.y * v.x);
      const double iz = m * (x.x * x.x + x.y * x.y);
      i_z += iz, i_z2 += iz * iz;
      e_rot += 0.5 * m * norm2(v);
      const double phi = std::atan2(x.y, x.x);
      c2 += m * std::cos(2 * phi), s2 += m * std::sin(2 * phi);
      c1 += m * std::cos(phi), c4 += m * std::cos(4 * phi);
      r_max = std::fmax(r_max, norm(x));
    }
    CHECK(mass == Approx(p.mass).epsilon(1e-12));
    CHECK(norm(mx) < 1e-12 * p.mass * p.radius);
    CHECK(norm(mv) < 1e-12 * p.mass * p.omega * p.radius);
    // Random points recentred: up to ~ R/sqrt(n) = 1% outside R; the glass far less.
    CHECK(r_max < 1.03 * p.radius);
    // Rigid rotation about z: L_z = I_z Omega to round-off.
    CHECK(l_z == Approx(i_z * p.omega).epsilon(1e-12));
    // I_z of a uniform sphere: 2/5 M R^2 (the azimuthal shift leaves cylindrical radii alone).
    // Noise: I_z a sum of n independent terms, sample sigma; 4 sigma.
    const double i_exact = 0.4 * p.mass * p.radius * p.radius;
    const double sig_i = std::sqrt(i_z2 - i_z * i_z / n);
    CHECK(std::fabs(i_z - i_exact) < 4 * sig_i);

    // alpha and beta against the continuum, W within its U-statistic noise: for a uniform
    // sphere psi(r) ~ 3 - (r/R)^2 with r/R of density 3x^2: E = 12/5, E[psi^2] = 204/35,
    // Var/E^2 = 0.01190, sigma_W/|W| = sqrt(4 x 0.0119/n) = 0.218/sqrt(n). E_rot's noise is
    // I_z's. The m = 2 perturbation changes W by O(A^2) = 1% x (a form factor well below 1).
    const double w = potential_energy(s, u.G);
    const double w_exact = potential_energy_uniform(p.mass, p.radius, u.G) * (1 - 1 / n);
    const double sig_w = 0.218 / std::sqrt(n);
    const double c_s = std::sqrt(p.u / 1.5);
    const double alpha = isothermal_thermal_energy(p.mass, c_s) / std::fabs(w);
    const double beta = e_rot / std::fabs(w);
    const double alpha_exact = isothermal_thermal_energy(p.mass, c_s) / std::fabs(w_exact);
    const double beta_exact = 0.5 * i_exact * p.omega * p.omega /
                              std::fabs(potential_energy_uniform(p.mass, p.radius, u.G));
    const double amp = 2 * c2 / mass;
    // Noise of 2 <cos 2phi> for independent azimuths: 2 sqrt(<cos^2 2phi>/n) = sqrt(2/n).
    const double sig_amp = std::sqrt(2.0 / n);
    const char* name = sampling == BallSampling::Glass ? "glass" : "random";
    std::printf(
        "boss-bodenheimer (%s, n = %zu): alpha = %.4f (continuum %.4f), beta = %.4f (%.4f), W = "
        "%.5g (%.5g, sigma %.2e rel), A_2 = %.4f +- %.4f (set 0.1), sin 2phi: %.4f, cos phi: "
        "%.4f, cos 4phi: %.4f\n",
        name, p.n, alpha, alpha_exact, beta, beta_exact, w, w_exact, sig_w, amp, sig_amp,
        2 * s2 / mass, 2 * c1 / mass, 2 * c4 / mass);
    CHECK(alpha_exact == Approx(0.26).margin(0.005));  // the published alpha and beta
    CHECK(beta_exact == Approx(0.16).margin(0.005));
    CHECK(std::fabs(w / w_exact - 1) < 4 * sig_w + 0.01 * 0.1 * 0.1);
    CHECK(std::fabs(beta / beta_exact - 1) <
          4 * std::sqrt(sig_w * sig_w + std::pow(sig_i / i_exact, 2)) + 0.001);
    // The m = 2 amplitude, and no other harmonic beyond the noise.
    CHECK(std::fabs(amp - 0.1) < 4 * sig_amp);
    CHECK(std::fabs(2 * s2 / mass) < 4 * sig_amp);
    CHECK(std::fabs(2 * c1 / mass) < 4 * sig_amp);
    CHECK(std::fabs(2 * c4 / mass) < 4 * sig_amp);
  }
}
