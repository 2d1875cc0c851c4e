// Hand-made particles for the star-formation tests: models in pc, Msun, km/s, boxes of clouds and
// of gas that meet a model's criteria, and conserved totals.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cooling/cooling_kern.hpp"
#include "core/constants.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"
#include "starform/starform.hpp"

namespace mpsph::test {

inline const UnitSystem& sf_units() {
  static const UnitSystem u = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);
  return u;
}

// The model `kind` at its defaults; model clouds with `trigger` (its default is coalescence).
inline StarformModel sf_model(StarformKind kind, bool cooling_on = false,
                              CloudsTrigger trigger = CloudsTrigger::Coalescence) {
  StarformParams p;
  p.kind = kind;
  p.multiphase_on = true;
  p.cooling_on = cooling_on;
  p.clouds_trigger = trigger;
  return StarformModel(p, sf_units(), false);
}

// Every particle on one step of length dt (ticks [0, 2^20)); returns the tick length.
inline double one_step(ParticleStore& s, double dt) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.ti_begin[i] = 0;
    s.ti_end[i] = int64_t(1) << 20;
  }
  return dt / double(int64_t(1) << 20);
}

// n clouds (type 2) of mass m [Msun] (times 1..1+spread), random positions in a 1 kpc box,
// velocities of ~10 km/s and metals; ids 1..n.
inline ParticleStore cloud_box(std::size_t n, double m, double spread = 0.0) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 99, kStreamSetup, k); };
    s.id[i] = i + 1;
    s.type[i] = kCloud;
    s.mass[i] = m * (1.0 + spread * u(0));
    s.pos[i] = {1e3 * u(1), 1e3 * u(2), 1e3 * u(3)};
    s.vel[i] = {20 * (u(4) - 0.5), 20 * (u(5) - 0.5), 20 * (u(6) - 0.5)};
    s.z_o[i] = 1e-2 * u(7);
    s.z_fe[i] = 2e-3 * u(8);
    s.x_h[i] = 0.7;
  }
  return s;
}

// n gas particles that meet every Katz criterion of the default model (cooling off): hydrogen
// density n_H [cm^-3] at X_H = 0.7, temperature T [K], converging (div v = -1), Jeans unstable
// (c = 0.1 km/s, h = 10 pc); returns the code density in *rho.
inline ParticleStore katz_box(std::size_t n, const StarformModel& m, double n_H, double T,
                              double* rho) {
  ParticleStore s;
  s.resize(n);
  *rho = n_H / (0.7 * m.katz.nH_per_rho);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 98, kStreamSetup, k); };
    s.id[i] = i + 1;
    s.type[i] = kGas;
    s.mass[i] = 100.0;
    s.pos[i] = {1e3 * u(1), 1e3 * u(2), 1e3 * u(3)};
    s.vel[i] = {20 * (u(4) - 0.5), 20 * (u(5) - 0.5), 20 * (u(6) - 0.5)};
    s.z_o[i] = 1e-2 * u(7);
    s.z_fe[i] = 2e-3 * u(8);
    s.x_h[i] = 0.7;
    s.rho[i] = float(*rho);
    s.h[i] = 10.0f;
    s.csound[i] = 0.1f;
    s.divv[i] = -1.0f;
    s.u[i] = s.u0[i] = u_from_temperature(m.katz.mu, m.katz.u_to_T, T);
  }
  return s;
}

struct Totals {
  double mass = 0, o = 0, fe = 0;
  Vec3d momentum{0, 0, 0};
};

// Mass, metal masses and momentum of every particle plus the pending children (spawn requests are
// part of their parents' mass until the order stage).
inline Totals totals(const ParticleStore& s) {
  Totals t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    t.mass += s.mass[i];
    t.o += s.mass[i] * s.z_o[i];
    t.fe += s.mass[i] * s.z_fe[i];
    t.momentum.x += s.mass[i] * s.vel[i].x;
    t.momentum.y += s.mass[i] * s.vel[i].y;
    t.momentum.z += s.mass[i] * s.vel[i].z;
  }
  return t;
}

}  // namespace mpsph::test
