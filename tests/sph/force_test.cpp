// Force loop: exact pair antisymmetry, the pair term against the formula in double, conservation
// of momentum and energy, a static uniform fluid, and the Balsara switch limits.
#include "sph/force.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "sph/density.hpp"
#include "sph/force_kern.hpp"
#include "sph/kernel_kern.hpp"
#include "sph/smoothing_length.hpp"
#include "sph_test_setup.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void full_force(ParticleStore& s, const Box& box, const EosParams& eos, const SphParams& p) {
  SphNeighbours nb;
  compute_smoothing_lengths(s, box, p, nb);
  compute_density(s, box, p, nb);
  prepare_force(s, eos, p);
  compute_sph_forces(s, box, p, nb);
}

}  // namespace

TEST_CASE("force pair is exactly antisymmetric in float", "[sph][force]") {
  // Random particles in a periodic box (min_image exercised), random per-particle states; every
  // pair evaluated from both sides must give bit-identical -acc, dudt and mu.
  const Box box = periodic_box({0, 0, 0}, {1, 1, 1});
  ParticleStore s = gas_store(uniform_points(120, {-0.2, 0, 0.1}, {1.3, 1, 1}, 31), 1.0);
  random_velocities(s, 3.0, 32);
  std::vector<ForceParticle> fp(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    fp[i] = {float(0.2 + 0.4 * random_uniform(i, 33, kStreamSetup, 0)),
             float(0.5 + 2.0 * random_uniform(i, 33, kStreamSetup, 1)),
             float(0.1 + 3.0 * random_uniform(i, 33, kStreamSetup, 2)),
             float(0.5 + random_uniform(i, 33, kStreamSetup, 3)),
             float(random_uniform(i, 33, kStreamSetup, 4))};
  // Both energy equations: the momentum term and mu are antisymmetric / symmetric in either; du/dt
  // is symmetric in the seed's form only (the own-pressure form uses P_i/rho_i^2 for particle i).
  for (const bool own_pressure : {false, true}) {
    SphParams sp;
    sp.energy_own_pressure = own_pressure;
    const PairForceParams vp = pair_force_params(sp);
    const ParticleView v = s.view();
    int approaching = 0, mismatched = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t j = i + 1; j < s.size(); ++j) {
        const ForcePair a = force_pair(pair_separation(v, i, j, box), fp[i], fp[j], vp);
        const ForcePair b = force_pair(pair_separation(v, j, i, box), fp[j], fp[i], vp);
        approaching += a.mu > 0.f;
        mismatched += !(same_bits(a.acc.x, -b.acc.x) && same_bits(a.acc.y, -b.acc.y) &&
                        same_bits(a.acc.z, -b.acc.z) &&
                        (own_pressure || same_bits(a.dudt, b.dudt)) && same_bits(a.mu, b.mu));
      }
    INFO("own_pressure " << own_pressure);
    CHECK(mismatched == 0);
    CHECK(approaching > 500);  // the viscous branch was exercised
  }
}

TEST_CASE("force pair equals the PHYSICS.md formula evaluated in double", "[sph][force]") {
  const ForceParticle pi{0.11f, 1.3f, 0.7f, 0.9f, 0.8f};
  const ForceParticle pj{0.14f, 0.9f, 0.4f, 1.2f, 0.3f};
  SphParams sp;
  sp.energy_own_pressure = false;  // the seed's symmetric form of PHYSICS.md first
  const PairForceParams vp = pair_force_params(sp);
  for (const double sign : {-1.0, 1.0}) {  // approaching (viscous) and receding pair
    const Vec3d dx{0.05, -0.08, 0.11}, dv{sign * 0.7, sign * -0.2, sign * 0.9};
    const ForcePair f =
        force_pair(PairSep{vec_cast<float>(dx), vec_cast<float>(dv), float(norm2(dx))}, pi, pj, vp);
    // Reference in double.
    const double h = 0.5 * (double(pi.h) + double(pj.h)), r = norm(dx), vr = dot(dv, dx);
    double visc = 0.0, mu = 0.0;
    if (vr < 0) {
      mu = h * vr / (r * r + sp.eps_visc * h * h);
      const double c = 0.5 * (double(pi.csound) + double(pj.csound));
      const double rho = 0.5 * (double(pi.rho) + double(pj.rho));
      visc = 0.5 * (double(pi.balsara) + double(pj.balsara)) *
             (-sp.alpha * c * mu + sp.beta * mu * mu) / rho;
    }
    const double q = double(pi.pressure) / (double(pi.rho) * pi.rho) +
                     double(pj.pressure) / (double(pj.rho) * pj.rho) + visc;
    const Vec3d gradw = (kernel_dwdr(r, h) / r) * dx;
    // Float pair arithmetic: ~10 operations of relative error 6e-8: 1e-5.
    CHECK(f.acc.x == Approx(-q * gradw.x).epsilon(1e-5));
    CHECK(f.acc.y == Approx(-q * gradw.y).epsilon(1e-5));
    CHECK(f.acc.z == Approx(-q * gradw.z).epsilon(1e-5));
    CHECK(f.dudt == Approx(0.5 * q * dot(dv, gradw)).epsilon(1e-5));
    // sph.energy_equation: own_pressure - du_i/dt from P_i/rho_i^2 and half the viscosity.
    PairForceParams own = vp;
    own.energy_own_pressure = true;
    const ForcePair fo = force_pair(
        PairSep{vec_cast<float>(dx), vec_cast<float>(dv), float(norm2(dx))}, pi, pj, own);
    const double q_own = double(pi.pressure) / (double(pi.rho) * pi.rho) + 0.5 * visc;
    CHECK(fo.dudt == Approx(q_own * dot(dv, gradw)).epsilon(1e-5));
    CHECK(fo.acc.x == f.acc.x);  // the momentum equation is the same
    CHECK(f.mu == Approx(std::fabs(mu)).epsilon(1e-5).margin(1e-30));
    CHECK((vr < 0) == (visc > 0));  // the viscosity only acts on approaching pairs, and heats
  }
}

TEST_CASE("SPH forces conserve momentum to round-off and energy to float precision",
          "[sph][force][conservation]") {
  const Box periodic = periodic_box({-1, -1, -1}, {2, 2, 2});
  for (const bool own_pressure : {false, true})
    for (const Box& box : {Box{}, periodic}) {
      // Both energy equations conserve energy (force_kern.hpp).
      SphParams sp;
      sp.energy_own_pressure = own_pressure;
      // Clustered, random velocities (many approaching pairs: viscosity and Balsara active),
      // random u: every term of the force loop contributes.
      ParticleStore s = gas_store(clustered_points(1500, {0.9, -0.9, 0.95}, 0.8, 41), 1.0 / 1500);
      random_velocities(s, 1.0, 42);
      if (box.periodic) wrap_every_second(s, box);
      for (std::size_t i = 0; i < s.size(); ++i) s.u[i] = 0.5 + random_uniform(i, 43, kStreamSetup);
      full_force(s, box, EosParams{}, sp);

      Vec3d p_dot{0, 0, 0};
      double p_scale = 0.0, e_dot = 0.0, e_scale = 0.0;
      for (std::size_t i = 0; i < s.size(); ++i) {
        p_dot += s.mass[i] * s.acc[i];
        p_scale += s.mass[i] * norm(s.acc[i]);
        const double kin = s.mass[i] * dot(s.vel[i], s.acc[i]), heat = s.mass[i] * s.dudt[i];
        e_dot += kin + heat;
        e_scale += std::fabs(kin) + std::fabs(heat);
      }
      // Exactly antisymmetric float pair terms summed in double: the total is double round-off
      // (~1e-15 of the scale); a float-level asymmetry would show at ~1e-7.
      CHECK(norm(p_dot) < 1e-12 * p_scale);
      // d/dt (kinetic + thermal) = 0 in the semi-discrete scheme; the pair terms are float, so
      // the balance holds to float precision: 6e-8 per term, errors of random sign (measured
      // 1.5e-10); 1e-6 still fails for any inconsistency between dv/dt and du/dt.
      CHECK(std::fabs(e_dot) < 1e-6 * e_scale);
      UNSCOPED_INFO("momentum " << norm(p_dot) / p_scale << ", energy "
                                << std::fabs(e_dot) / e_scale);
      CHECK(e_scale > 0.0);
    }
}

TEST_CASE("a static uniform fluid feels no force", "[sph][force]") {
  // Periodic lattice, uniform rho and u, at rest: the pressure gradient vanishes, so dv/dt = 0
  // (lattice symmetry, to float round-off of terms ~ P/(rho h)), du/dt = 0 exactly (v_ij = 0),
  // and vsig = c (1 + 1.2 alpha).
  const int n = 10;
  const double a = 0.1;
  const Box box = periodic_box({0, 0, 0}, {n * a, n * a, n * a});
  ParticleStore s = gas_store(cubic_lattice({0, 0, 0}, a, n, n, n), a * a * a);
  const EosParams eos;
  const SphParams p;
  full_force(s, box, eos, p);
  const double scale = s.pressure[0] / (s.rho[0] * s.h[0]);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(norm(s.acc[i]) < 1e-5 * scale);
    CHECK(s.dudt[i] == 0.0);
    CHECK(s.vsig[i] == Approx(s.csound[i] * (1.0 + 1.2 * p.alpha)).epsilon(1e-6));
  }
  // The EOS was applied: P = (gamma - 1) rho u with u = 1.
  CHECK(s.pressure[0] == Approx((eos.gamma - 1.0) * s.rho[0]).epsilon(1e-6));
}

TEST_CASE("Balsara switch: ~0 in pure shear, ~1 in pure compression", "[sph][force][balsara]") {
  const int n = 16;
  const double a = 0.1, k = 2.0;
  const Vec3d c{0.8, 0.8, 0.8};
  ParticleStore s = gas_store(cubic_lattice({0, 0, 0}, a, n, n, n), a * a * a);
  EosParams eos;
  eos.kind = EosKind::Isothermal;
  eos.sound_speed = 1.0;  // eps' c/h = 1e-4 / 0.11 ~ 1e-3, small next to k
  const SphParams p;
  auto interior = [&](const Vec3d& x) {
    return std::min({x.x, x.y, x.z}) > 4 * a && std::max({x.x, x.y, x.z}) < n * a - 4 * a;
  };
  SECTION("shear v = (k y, 0, 0): |curl v| = k, div v = 0 by lattice symmetry") {
    for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] = {k * (s.pos[i].y - c.y), 0.0, 0.0};
    full_force(s, Box{}, eos, p);
    for (std::size_t i = 0; i < s.size(); ++i)
      if (interior(s.pos[i])) CHECK(s.balsara[i] < 1e-3);  // |div v| is float round-off, ~1e-6 k
  }
  SECTION("compression v = -k (x - c): curl v = 0, |div v| = 3k") {
    for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] = -k * (s.pos[i] - c);
    full_force(s, Box{}, eos, p);
    // f = 1 - eps' c / (h |div v|) + O(curl round-off) = 1 - 1.5e-4.
    for (std::size_t i = 0; i < s.size(); ++i)
      if (interior(s.pos[i])) CHECK(s.balsara[i] > 0.999f);
  }
  SECTION("switch off: f = 1") {
    SphParams off;
    off.balsara = false;
    for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] = {k * (s.pos[i].y - c.y), 0.0, 0.0};
    full_force(s, Box{}, eos, off);
    for (std::size_t i = 0; i < s.size(); ++i) REQUIRE(s.balsara[i] == 1.f);
  }
}
