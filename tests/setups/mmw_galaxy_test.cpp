// The Mo, Mao & White (1998) parametrisation (setups/mmw_galaxy.hpp): the NFW energy factor
// against MMW98's fitting formula, the exponential disk's circular velocity and angular momentum
// against their analytic limits, the solved disk carrying exactly j_d of the halo's angular
// momentum (an independent quadrature), and the config keys (setup.parametrisation: mmw98).
#include "setups/mmw_galaxy.hpp"

#include <cmath>
#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "core/units.hpp"
#include "setups/disk_galaxy_params.hpp"
#include "setups/initial_conditions.hpp"
#include "setups/setup_schema_support.hpp"
#include "sph/eos_params.hpp"

using namespace mpsph;

TEST_CASE("mmw98: f_c against MMW98's fit 2/3 + (c/21.5)^0.7", "[setups][mmw98]") {
  // The fit is good to better than 1% for 5 <= c <= 30 (measured: at most 0.63%); an error in
  // f_c's formula (a sign, a missing factor) moves it by far more.
  for (double c : {5.0, 9.0, 15.0, 20.0, 30.0})
    CHECK(std::fabs(nfw_energy_factor(c) / (2.0 / 3.0 + std::pow(c / 21.5, 0.7)) - 1.0) < 0.01);
  // The Hernquist halo has the NFW halo's inner density: M a / (2 pi r a^3) = M200 / (4 pi r r_s^2
  // [ln(1 + c) - c / (1 + c)]) as r -> 0, i.e. a^2 = 2 r_s^2 [ln(1 + c) - c / (1 + c)].
  const double c = 12.0, r200 = 200.0, rs = r200 / c;
  const double a = hernquist_scale_for_nfw(r200, c);
  CHECK(a * a / (2.0 * rs * rs * (std::log(1.0 + c) - c / (1.0 + c))) ==
        Approx(1.0).epsilon(1e-14));
}

TEST_CASE("mmw98: exponential disk v_c and J/M against their limits", "[setups][mmw98]") {
  const double G = 4.3, M = 5.0, Rd = 2.0;
  // Flat rotation curve: J/M = 2 R_d V exactly (int u^2 e^-u = 2).
  CHECK(exponential_disk_specific_j(Rd, [](double) { return 150.0 * 150.0; }) ==
        Approx(2.0 * Rd * 150.0).epsilon(1e-10));
  // Far out the disk is a point mass: v^2 = G M / R (1 + O((R_d/R)^2)).
  const double R = 300.0 * Rd;
  CHECK(exponential_disk_vc2(R, M, Rd, G) == Approx(G * M / R).epsilon(1e-4));
  // Freeman (1970): the peak at R = 2.15 R_d, v_max^2 = 0.3870 G M / R_d (4 digits from
  // y^2 [I0 K0 - I1 K1] at its maximum y = 1.08).
  double best = 0.0, at = 0.0;
  for (double x = 1.5; x < 3.0; x += 1e-4) {
    const double v2 = exponential_disk_vc2(x * Rd, M, Rd, G);
    if (v2 > best) best = v2, at = x;
  }
  CHECK(at == Approx(2.15).margin(0.01));
  CHECK(best / (G * M / Rd) == Approx(0.3870).margin(5e-4));
}

TEST_CASE("mmw98: the disk carries j_d of the halo's angular momentum", "[setups][mmw98]") {
  const UnitSystem u = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  const double H = 70.0 * cgs::km_s / (1e3 * cgs::kpc) * u.time_cgs();
  Mmw98Inputs in;  // V200 160 km/s, c 9, lambda 0.033, m_d 0.041, m_b 0.0137
  in.v200 = 160.0;
  const Mmw98Galaxy g = solve_mmw98(in, u.G, H);
  CHECK(g.r200 == Approx(160.0 / (10.0 * H)).epsilon(1e-14));
  CHECK(g.m200 == Approx(g.v200 * g.v200 * g.r200 / u.G).epsilon(1e-12));
  CHECK(g.halo_mass + g.disk_mass + g.bulge_mass == Approx(g.m200).epsilon(1e-14));
  // J of the solved disk by an independent quadrature, with the same circular velocity: the
  // trapezoidal rule in t = sqrt(u), where the integrand 2 t^5 v_c(R_d t^2) e^(-t^2) is smooth,
  // vanishes to high order at t = 0 and falls off as a Gaussian (so the rule converges
  // geometrically; t <= 8 leaves out e^-64).
  auto vc2 = [&](double R) {
    return u.G * g.halo_mass * R / std::pow(R + g.halo_scale, 2) +
           exponential_disk_vc2(R, g.disk_mass, g.R_d, u.G) +
           u.G * g.bulge_mass * R / std::pow(R + g.bulge_scale, 2);
  };
  const int n = 4000;
  const double dt = 8.0 / n;
  double J = 0.0;
  for (int k = 1; k <= n; ++k) {  // the t = 0 term is 0
    const double t = k * dt, w = k == n ? 0.5 : 1.0;
    J += w * 2.0 * std::pow(t, 5) * std::sqrt(vc2(g.R_d * t * t)) * std::exp(-t * t) * dt;
  }
  J *= g.disk_mass * g.R_d;
  CHECK(J / (in.disk_fraction * g.J_halo) == Approx(1.0).epsilon(1e-9));
  // Self-gravity and the bulge shrink the disk below the flat-rotation-curve estimate
  // R_d = lambda r200 / (sqrt 2 sqrt f_c) (MMW98 eq. 28 with f_R = 1), here by 28%.
  const double flat = in.spin * g.r200 / std::sqrt(2.0 * g.f_c);
  CHECK(g.R_d < flat);
  CHECK(g.R_d > 0.5 * flat);
  // M200 instead of V200: the same galaxy.
  Mmw98Inputs by_mass = in;
  by_mass.v200 = 0.0;
  by_mass.m200 = g.m200;
  CHECK(solve_mmw98(by_mass, u.G, H).R_d == Approx(g.R_d).epsilon(1e-10));
}

namespace {

using test::setup_schema;

const char* kUnits = "units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}\n";

DiskGalaxyParams params_of(const std::string& yaml) {
  return disk_galaxy_params_from(Config::from_string(yaml, "g.yml", setup_schema()), "setup.");
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] { params_of(yaml); });
}

}  // namespace

TEST_CASE("mmw98: setup.parametrisation in the config, and its refusals", "[setups][mmw98]") {
  const std::string base = std::string(kUnits) + "setup:\n  type: disk_galaxy\n";
  const DiskGalaxyParams p =
      params_of(base +
                "  parametrisation: mmw98\n  mmw: {v200: 160, concentration: 9}\n"
                "  halo: {r_max: 300}\n  bulge: {r_max: 30}\n");
  const UnitSystem u = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  const double H = 70.0 * cgs::km_s / (1e3 * cgs::kpc) * u.time_cgs();
  Mmw98Inputs in;
  in.v200 = 160.0;
  const Mmw98Galaxy g = solve_mmw98(in, u.G, H);
  CHECK(p.disk_scale_length == g.R_d);
  CHECK(p.disk_mass == g.disk_mass);
  CHECK(p.disk_scale_height == Approx(0.2 * g.R_d).epsilon(1e-15));
  // The particles carry the Hernquist mass inside r_max.
  CHECK(p.halo_mass ==
        Approx(g.halo_mass * 300.0 * 300.0 / std::pow(300.0 + g.halo_scale, 2)).epsilon(1e-14));
  CHECK(p.derivation.find("Mo, Mao & White") != std::string::npos);

  // Explicit keys do not exist under mmw98 (and vice versa); exactly one of V200 and M200.
  CHECK(error_of(base + "  parametrisation: mmw98\n  disk: {mass: 4}\n").find("disk.mass") !=
        std::string::npos);
  CHECK(error_of(base + "  mmw: {v200: 100}\n").find("mmw") != std::string::npos);
  CHECK(error_of(base + "  parametrisation: mmw98\n  mmw: {v200: 160, m200: 100}\n")
            .find("exactly one") != std::string::npos);
  CHECK(error_of("units: {system: nbody}\nsetup:\n  type: disk_galaxy\n  parametrisation: mmw98\n")
            .find("physical units") != std::string::npos);
  CHECK(error_of(base + "  parametrisation: mmw98\n  mmw: {disk_fraction: 0.6, bulge_fraction: "
                        "0.5}\n")
            .find("below 1") != std::string::npos);
}
