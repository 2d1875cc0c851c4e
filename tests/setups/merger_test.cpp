// Merger initial conditions (setups/merger.hpp): the galaxies' centres follow the requested
// point-mass orbit, the total momentum is zero, ids are distinct, GalaxyID marks the galaxies and
// each disk spins along its two angles.
#include "setups/merger.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "catch.hpp"
#include "core/constants.hpp"

using namespace mpsph;

namespace {

MergerParams small_merger(double e) {
  MergerParams p;
  for (MergerGalaxy& g : p.galaxy) {
    g.params.n_halo = 4000;
    g.params.n_disk = 2000;
    g.params.n_gas = 1000;
    g.params.n_bulge = 500;
    g.params.grid_n_R = 32;
    g.params.grid_n_z = 24;
  }
  p.galaxy[1].params.halo_mass = 50.0;  // unequal masses: the centre of mass is not midway
  p.galaxy[0].theta_deg = 0;
  p.galaxy[1].theta_deg = 71;
  p.galaxy[1].phi_deg = 30;
  p.separation = 100.0;
  p.pericentre = 7.0;
  p.eccentricity = e;
  return p;
}

struct Centre {
  double m = 0;
  Vec3d x{0, 0, 0}, v{0, 0, 0}, disk_spin{0, 0, 0};
};

}  // namespace

TEST_CASE("merger: galaxy centres on the requested orbit, zero momentum, distinct ids",
          "[setups][merger]") {
  const UnitSystem u = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  for (double e : {1.0, 0.95}) {
    const MergerParams p = small_merger(e);
    const ParticleStore s = make_merger(p, u, 5.0 / 3.0, false);
    Centre c[2];
    std::set<uint64_t> ids;
    Vec3d momentum{0, 0, 0};
    double p_scale = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      REQUIRE((s.galaxy_id[i] == 1 || s.galaxy_id[i] == 2));
      Centre& g = c[s.galaxy_id[i] - 1];
      g.m += s.mass[i];
      g.x += s.mass[i] * s.pos[i];
      g.v += s.mass[i] * s.vel[i];
      momentum += s.mass[i] * s.vel[i];
      p_scale += s.mass[i] * norm(s.vel[i]);
      ids.insert(s.id[i]);
    }
    CHECK(ids.size() == s.size());
    for (Centre& g : c) g.x *= 1.0 / g.m, g.v *= 1.0 / g.m;
    // Disk stars' angular momentum about their own centre: the spin direction.
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s.type[i] != kOldStar) continue;
      Centre& g = c[s.galaxy_id[i] - 1];
      g.disk_spin += s.mass[i] * cross(s.pos[i] - g.x, s.vel[i] - g.v);
    }
    const Vec3d dx = c[1].x - c[0].x, dv = c[1].v - c[0].v;
    const double mu = u.G * (c[0].m + c[1].m), r = norm(dx);
    // Orbit invariants of the two point masses: energy per reduced mass E = -mu/(2a) with
    // a = r_p/(1-e) (0 for the parabola) and angular momentum h = sqrt(mu r_p (1+e)).
    const double energy = 0.5 * norm2(dv) - mu / r;
    const double h = norm(cross(dx, dv));
    const double h_expected = std::sqrt(mu * p.pericentre * (1 + e));
    const double energy_expected = -mu * (1 - e) / (2 * p.pericentre);
    std::printf(
        "merger e = %.2f: separation %.6f, v_rel %.3f km/s, E %.4e (expected %.4e), h "
        "%.6e (expected %.6e), |P|/sum m|v| = %.1e\n",
        e, r, norm(dv), energy, energy_expected, h, h_expected, norm(momentum) / p_scale);
    CHECK(r == Approx(p.separation).epsilon(1e-10));
    CHECK(dot(dx, dv) < 0);  // approaching
    CHECK(energy == Approx(energy_expected).margin(1e-9 * mu / r));
    CHECK(h == Approx(h_expected).epsilon(1e-10));
    CHECK(norm(momentum) < 1e-12 * p_scale);
    CHECK(norm(c[0].x * c[0].m + c[1].x * c[1].m) < 1e-10 * (c[0].m + c[1].m) * r);
    // Spins: galaxy 1 along +z, galaxy 2 along (theta, phi) = (71, 30) degrees.
    const double t = 71 * cgs::kPi / 180, ph = 30 * cgs::kPi / 180;
    const Vec3d n2{std::sin(t) * std::cos(ph), std::sin(t) * std::sin(ph), std::cos(t)};
    CHECK(c[0].disk_spin.z / norm(c[0].disk_spin) > 0.999);
    CHECK(dot(c[1].disk_spin, n2) / norm(c[1].disk_spin) > 0.999);
  }
}

TEST_CASE("merger: Kepler start refuses impossible orbits", "[setups][merger]") {
  CHECK_THROWS(kepler_start(1.0, 5.0, 10.0, 1.0));   // separation below pericentre
  CHECK_THROWS(kepler_start(1.0, 100.0, 5.0, 0.5));  // beyond apocentre 15
  const KeplerStart k = kepler_start(2.0, 10.0, 1.0, 1.0);
  CHECK(norm2(k.dv) == Approx(2 * 2.0 / 10.0));              // v^2 = 2 G M / r0 (parabolic)
  CHECK(k.dv.y == Approx(std::sqrt(2 * 2.0 * 1.0) / 10.0));  // v_t = sqrt(2 G M r_p)/r0
}
