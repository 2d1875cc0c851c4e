// The cooling stage's CPU driver: floor, heating equilibrium, units, energy bookkeeping, outputs.
#include "cooling/cooling.hpp"

#include <cmath>
#include <cstdio>

#include "catch.hpp"
#include "cooling/cooling_box_support.hpp"
#include "cooling/cooling_reference.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "setups/cooling_box.hpp"

using namespace mpsph;

namespace {

UnitSystem galaxy_units() {
  return UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
}
UnitSystem cloud_units() {
  return UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
}

CoolingParams sd93(double floor_K = 10.0, double heating = 0.0) {
  CoolingParams cp;
  cp.kind = CoolingKind::Sd93;
  cp.metals = MetalSource::Particles;
  cp.floor_K = floor_K;
  cp.heating = heating;
  return cp;
}

CoolingBoxSetup box_at(const CoolingModel& m, double n_H, double T, double feh = 0.0) {
  CoolingBoxParams bp;
  bp.n_side = 2;
  bp.n_H = n_H;
  bp.temperature = T;
  bp.feh = feh;
  return make_cooling_box(bp, m);
}

}  // namespace

TEST_CASE("cooling never goes below the temperature floor", "[cooling][driver]") {
  const CoolingModel m(sd93(100.0), galaxy_units());
  ParticleStore s = box_at(m, 0.1, 1e5).particles;
  // Steps of half the current cooling time (the energy criterion with C = 0.5) all the way down:
  // T >= floor at every step, and it ends on the floor.
  int n = 0;
  for (; n < 10000 && s.u[0] > m.u_floor(); ++n) {
    test::cooling_step(s, m, 0.5 * test::cooling_time_of(s, m));
    REQUIRE(s.u[0] >= m.u_floor());
  }
  CHECK(n < 10000);
  CHECK(s.u[0] == m.u_floor());
  CHECK(m.temperature(s.u[0]) == Approx(100.0).epsilon(1e-12));
  // One huge step from 1e7 K lands exactly on the floor too.
  ParticleStore hot = box_at(m, 0.1, 1e7).particles;
  test::cooling_step(hot, m, 1e4 * test::cooling_time_of(hot, m));
  CHECK(hot.u[0] == m.u_floor());
  CHECK(hot.temperature[0] == Approx(100.0).epsilon(1e-6));  // float field
  // Held at the floor, u does not change: the stored rate is 0, so the cooling-time criterion
  // does not shrink the step there.
  CHECK(hot.dudt_cool[0] == 0.0);
  // Expansion (hydro du/dt < 0) that would take u below the floor: held at the floor, and the
  // energy the floor adds counts as negative radiated energy, m (u0 + dt a - u_floor).
  ParticleStore exp = box_at(m, 0.1, 1e3).particles;
  const double u0 = exp.u[0], dt = 1e-3;
  const double a = -10.0 * u0 / dt;
  const CoolingStepResult r = test::cooling_step(exp, m, dt, a);
  CHECK(exp.u[0] == m.u_floor());
  CHECK(r.radiated_energy ==
        Approx(double(exp.size()) * exp.mass[0] * (u0 + dt * a - m.u_floor())).epsilon(1e-12));
  CHECK(r.radiated_energy < 0.0);
}

TEST_CASE("heating and cooling settle at the equilibrium temperature", "[cooling][driver]") {
  // Gamma = 2e-26 erg/s per H at n_H = 1 cm^-3: equilibrium where n_H Lambda_KI02(T) = Gamma,
  // solved here by bisection with the reference's own KI02 formula (mu = 1.22 there: T < 8000 K).
  const double n_H = 1.0, gamma_h = 2e-26;
  double lo = 10.0, hi = 9999.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (n_H * test::RefCooling::lambda_ki02(mid) < gamma_h ? lo : hi) = mid;
  }
  const double T_eq = 0.5 * (lo + hi);
  CHECK(T_eq == Approx(5000.0).epsilon(0.05));  // the known warm-neutral equilibrium near 5e3 K

  const CoolingModel m(sd93(10.0, gamma_h), galaxy_units());
  const double myr = cgs::Myr / galaxy_units().time_cgs();
  // From above (through the 1e4 K edge: solar SD93 cooling there, 2.2e-26, still beats Gamma)
  // and from below; steps of 1 Myr (~ the thermal time at T_eq) and of 1 Gyr.
  for (double T0 : {1e6, 100.0})
    for (double dt_myr : {1.0, 1000.0}) {
      ParticleStore s = box_at(m, n_H, T0).particles;
      const int steps = dt_myr < 10 ? 1000 : 5;
      for (int n = 0; n < steps; ++n) test::cooling_step(s, m, dt_myr * myr);
      std::printf("cooling equilibrium: from %g K, dt %g Myr: T = %.10g K, T_eq = %.10g K\n", T0,
                  dt_myr, m.temperature(s.u[0]), T_eq);
      // The equilibrium is a fixed point of every implicit substep, found to the root solver's
      // 1e-13; what is left is n_H from the float density field (6e-8): measured 4e-9.
      CHECK(m.temperature(s.u[0]) == Approx(T_eq).epsilon(1e-6));
      CHECK(std::fabs(s.dudt_cool[0]) * 1e3 * myr < 1e-9 * s.u[0]);  // no net rate left
    }
}

TEST_CASE("cooling is the same in pc/Msun/km/s and kpc/1e10Msun/km/s units", "[cooling][driver]") {
  const UnitSystem us[2] = {cloud_units(), galaxy_units()};
  double t_half_myr[2], T_after[2];
  for (int k = 0; k < 2; ++k) {
    const CoolingModel m(sd93(), us[k]);
    const double myr = cgs::Myr / us[k].time_cgs();
    const ParticleStore s0 = box_at(m, 0.1, 1e6).particles;
    // Steps of 0.1 Myr (t_cool = 1.1 Myr): time to reach 5e5 K, and T after 30 Myr.
    t_half_myr[k] = test::time_to_reach(s0, m, 0.1 * myr, 5e5) / myr;
    ParticleStore s = s0;
    for (int n = 0; n < 300; ++n) test::cooling_step(s, m, 0.1 * myr);
    T_after[k] = m.temperature(s.u[0]);
  }
  std::printf(
      "cooling units: t(5e5 K) = %.12g Myr (pc, Msun) vs %.12g Myr (kpc, 1e10 Msun), "
      "rel. diff %.1e; T(30 Myr) rel. diff %.1e\n",
      t_half_myr[0], t_half_myr[1], std::fabs(t_half_myr[0] / t_half_myr[1] - 1.0),
      std::fabs(T_after[0] / T_after[1] - 1.0));
  // The scheme is scale-free (relative tolerances); what is left is the float density field
  // (6e-8 per unit system) and round-off in the unit conversions: measured 2e-8 and 4e-8.
  CHECK(t_half_myr[0] == Approx(t_half_myr[1]).epsilon(1e-6));
  CHECK(T_after[0] == Approx(T_after[1]).epsilon(1e-6));
  CHECK(t_half_myr[0] == Approx(0.4055 * 1.094).epsilon(0.01));  // cooling_box_validation value
}

TEST_CASE("radiated energy closes the energy budget", "[cooling][driver]") {
  const CoolingModel m(sd93(), galaxy_units());
  ParticleStore s = box_at(m, 0.1, 1e6).particles;
  for (std::size_t i = 0; i < s.size(); ++i) s.u[i] *= 1.0 + 0.1 * double(i);  // spread in T
  const double myr = cgs::Myr / galaxy_units().time_cgs();
  auto thermal = [&] {
    double e = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) e += s.mass[i] * s.u[i];
    return e;
  };
  double mass = 0.0;
  for (double mi : s.mass) mass += mi;
  // A constant hydro heating a: E_th(t) + E_radiated = E_th(0) + M a t, exactly by construction
  // of the bookkeeping; round-off over 200 steps stays far below 1e-12.
  const double e0 = thermal(), a = 0.3 * s.u[0] / (10.0 * myr), dt = 0.05 * myr;
  double radiated = 0.0;
  for (int n = 0; n < 200; ++n) radiated += test::cooling_step(s, m, dt, a).radiated_energy;
  CHECK(radiated > 0.0);
  CHECK(thermal() + radiated == Approx(e0 + mass * a * 200 * dt).epsilon(1e-12));
  // The stored cooling rate is du/dt_rad at the new state; the temperature field follows u.
  const CoolingKernelParams p = m.kernel_params();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const CoolingGas g = cooling_gas(p, s.rho[i], s.x_h[i], s.z_fe[i]);
    CHECK(s.dudt_cool[i] == radiative_dudt(p, g, s.u[i]));
    CHECK(s.temperature[i] == float(m.temperature(s.u[i])));
  }

  // Model none: the plain corrector u0 + dt a, nothing radiated.
  CoolingParams none;
  const CoolingModel off(none, galaxy_units());
  ParticleStore q = s;
  const double u_before = q.u[3];
  const CoolingStepResult r = test::cooling_step(q, off, dt, a);
  CHECK(q.u[3] == u_before + dt * a);
  CHECK(r.radiated_energy == 0.0);
  CHECK(q.dudt_cool[3] == 0.0);
  CHECK(!off.enabled());
  CHECK(off.table() == nullptr);
}

TEST_CASE("metallicity from the particles, or the configured one", "[cooling][driver]") {
  const double myr = cgs::Myr / galaxy_units().time_cgs();
  CoolingParams cp = sd93();
  cp.metallicity = -1.0;
  const CoolingModel per_particle(cp, galaxy_units());
  cp.metals = MetalSource::Fixed;
  const CoolingModel fixed(cp, galaxy_units());

  ParticleStore s = box_at(per_particle, 0.1, 1e6, -1.0).particles;
  s.x_h[1] = s.z_fe[1] = 0.0;  // no metal fields: falls back to cooling.metallicity = -1
  const double z_solar = s.x_h[2] * kSolarFeToH;
  s.z_fe[2] = z_solar;  // [Fe/H] = 0
  ParticleStore f = s;
  const double u_init = s.u[0];
  test::cooling_step(s, per_particle, 0.2 * myr);
  test::cooling_step(f, fixed, 0.2 * myr);
  CHECK(s.u[1] == s.u[0]);  // fallback = the particle with [Fe/H] = -1
  CHECK(f.u[2] == s.u[0]);  // fixed metals ignore the particle's iron
  // At 1e6 K metal lines dominate: Lambda_N is 10^-21.96 (solar) against 10^-22.63 ([Fe/H] = -1)
  // in the tables, so solar gas loses several times more energy in the same short step.
  CHECK(u_init - s.u[2] > 3.0 * (u_init - s.u[0]));
}

TEST_CASE("cooling needs physical units and valid parameters", "[cooling][driver]") {
  CHECK_THROWS_AS(CoolingModel(sd93(), UnitSystem::nbody_units()), Error);
  CoolingParams bad = sd93();
  bad.table_dir = "/nonexistent/cooling";
  CHECK_THROWS_AS(CoolingModel(bad, galaxy_units()), Error);
  // Model none needs no tables and works in any units.
  CoolingParams none;
  none.table_dir = "/nonexistent/cooling";
  CHECK_NOTHROW(CoolingModel(none, UnitSystem::nbody_units()));
}
