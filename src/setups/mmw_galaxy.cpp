#include "setups/mmw_galaxy.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

double nfw_energy_factor(double c) {
  const double l = std::log1p(c), q = c / (1.0 + c);
  return 0.5 * c * (1.0 - 1.0 / ((1.0 + c) * (1.0 + c)) - 2.0 * l / (1.0 + c)) /
         ((q - l) * (q - l));
}

double hernquist_scale_for_nfw(double r200, double c) {
  return r200 / c * std::sqrt(2.0 * (std::log1p(c) - c / (1.0 + c)));
}

double exponential_disk_vc2(double R, double mass, double R_d, double G) {
  const double y = 0.5 * R / R_d;
  if (y < 1e-8) return 0.0;
  const double b = std::cyl_bessel_i(0.0, y) * std::cyl_bessel_k(0.0, y) -
                   std::cyl_bessel_i(1.0, y) * std::cyl_bessel_k(1.0, y);
  return 2.0 * G * mass / R_d * y * y * b;
}

Mmw98Galaxy solve_mmw98(const Mmw98Inputs& in, double G, double H) {
  if ((in.v200 > 0.0) == (in.m200 > 0.0))
    throw Error("mmw98: give exactly one of mmw.v200 and mmw.m200 (the other 0)");
  if (in.disk_fraction + in.bulge_fraction >= 1.0)
    throw Error("mmw98: mmw.disk_fraction + mmw.bulge_fraction must be below 1");
  Mmw98Galaxy g;
  g.v200 = in.v200 > 0.0 ? in.v200 : std::cbrt(10.0 * G * H * in.m200);
  g.m200 = g.v200 * g.v200 * g.v200 / (10.0 * G * H);
  g.r200 = g.v200 / (10.0 * H);
  g.f_c = nfw_energy_factor(in.concentration);
  g.halo_mass = (1.0 - in.disk_fraction - in.bulge_fraction) * g.m200;
  g.halo_scale = hernquist_scale_for_nfw(g.r200, in.concentration);
  g.disk_mass = in.disk_fraction * g.m200;
  g.bulge_mass = in.bulge_fraction * g.m200;
  g.J_halo = std::sqrt(2.0) * in.spin * g.m200 * g.r200 * g.v200 / std::sqrt(g.f_c);
  const double j_d = in.j_d > 0.0 ? in.j_d : in.disk_fraction;
  g.J_disk = j_d * g.J_halo;
  const double target = g.J_disk / g.disk_mass;  // specific angular momentum of the disk

  // R_d = target / (J/M per unit R_d): a fixed point, started from a flat rotation curve
  // (J/M = 2 R_d V200).
  double R_d = target / (2.0 * g.v200);
  for (g.iterations = 1; g.iterations <= 200; ++g.iterations) {
    const double b = in.bulge_scale * R_d;
    auto vc2 = [&](double R) {
      double v2 = G * g.halo_mass * R / ((R + g.halo_scale) * (R + g.halo_scale)) +
                  exponential_disk_vc2(R, g.disk_mass, R_d, G);
      if (g.bulge_mass > 0.0) v2 += G * g.bulge_mass * R / ((R + b) * (R + b));
      return v2;
    };
    const double j_per_Rd = exponential_disk_specific_j(R_d, vc2) / R_d;
    const double next = target / j_per_Rd;
    const bool done = std::fabs(next - R_d) <= 1e-12 * R_d;
    R_d = next;
    if (done) break;
  }
  if (g.iterations > 200 || !(R_d > 0.0) || !std::isfinite(R_d))
    throw Error("mmw98: the disk scale length did not converge (R_d = " + param_text(R_d) +
                " code length after 200 iterations); the disk is probably too heavy for its halo "
                "(lower mmw.disk_fraction or raise mmw.spin)");
  g.R_d = R_d;
  g.z0 = in.disk_height * R_d;
  g.bulge_scale = in.bulge_scale * R_d;
  return g;
}

void apply_mmw98(const Mmw98Galaxy& g, DiskGalaxyParams& p) {
  auto inside = [](double M, double a, double r) { return M * r * r / ((r + a) * (r + a)); };
  p.halo_mass = inside(g.halo_mass, g.halo_scale, p.halo_r_max);
  p.halo_scale_radius = g.halo_scale;
  p.bulge_mass = g.bulge_mass > 0.0 ? inside(g.bulge_mass, g.bulge_scale, p.bulge_r_max) : 0.0;
  p.bulge_scale_radius = g.bulge_mass > 0.0 ? g.bulge_scale : p.bulge_scale_radius;
  p.disk_mass = g.disk_mass;
  p.disk_scale_length = g.R_d;
  p.disk_scale_height = g.z0;
}

std::string mmw98_summary(const Mmw98Galaxy& g, double L, double M, double V) {
  char line[512];
  std::snprintf(line, sizeof line,
                "disk galaxy (Mo, Mao & White 1998): V200 %.1f km/s, M200 %.4g Msun, r200 %.1f "
                "kpc, f_c %.4f; halo (Hernquist) %.4g Msun, a %.2f kpc; disk %.4g Msun, R_d %.3f "
                "kpc, z0 %.3f kpc; bulge %.4g Msun, b %.3f kpc (%d iterations)\n",
                g.v200 * V, g.m200 * M, g.r200 * L, g.f_c, g.halo_mass * M, g.halo_scale * L,
                g.disk_mass * M, g.R_d * L, g.z0 * L, g.bulge_mass * M, g.bulge_scale * L,
                g.iterations);
  return line;
}

}  // namespace mpsph
