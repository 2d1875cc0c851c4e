// A gas box with star particles for the feedback tests, in pc / Msun / km/s (time unit 0.9778
// Myr), and the conserved totals.
#pragma once

#include <cmath>
#include <memory>

#include "core/box.hpp"
#include "core/constants.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"
#include "feedback/feedback.hpp"
#include "feedback/ssp_table.hpp"

namespace mpsph::test {

inline UnitSystem pc_msun_kms() {
  return UnitSystem::from_cgs(3.0857e18, cgs::Msun, 1e5);
}

// n^3 gas particles of 100 Msun on a jittered lattice in a periodic box of side L pc, random
// velocities ~10 km/s, u ~ (10 km/s)^2, and `n_star` stars of 1e4 Msun formed at -birth_age_myr
// (type 3) or 0 (type 4) alternately, with birth O and Fe fractions (z_o, z_fe) and Z = birth_z.
struct FeedbackBox {
  ParticleStore s;
  Box box;
  std::size_t n_gas = 0;
};

inline FeedbackBox make_feedback_box(int n, double L, int n_star, double birth_age_code,
                                     double gas_z_o, double gas_z_fe, double star_z_o,
                                     double star_z_fe) {
  FeedbackBox b;
  b.box.periodic = true;
  b.box.lo = {0, 0, 0};
  b.box.size = {L, L, L};
  b.n_gas = std::size_t(n) * n * n;
  b.s.resize(b.n_gas + std::size_t(n_star));
  const double d = L / n;
  for (std::size_t i = 0; i < b.n_gas; ++i) {
    auto r = [&](uint32_t k) { return random_uniform(i, 0, kStreamSetup, k); };
    const double x = (double(i % n) + 0.5 + 0.3 * (r(0) - 0.5)) * d;
    const double y = (double((i / n) % n) + 0.5 + 0.3 * (r(1) - 0.5)) * d;
    const double z = (double(i / (std::size_t(n) * n)) + 0.5 + 0.3 * (r(2) - 0.5)) * d;
    b.s.id[i] = 1000 + i;
    b.s.type[i] = kGas;
    b.s.pos[i] = {x, y, z};
    b.s.vel[i] = {20.0 * (r(3) - 0.5), 20.0 * (r(4) - 0.5), 20.0 * (r(5) - 0.5)};
    b.s.vel0[i] = b.s.vel[i];
    b.s.mass[i] = 100.0 * (1.0 + 0.2 * r(6));
    b.s.u[i] = 100.0 * (1.0 + r(7));
    b.s.u0[i] = b.s.u[i];
    b.s.h[i] = float(1.2 * d);
    b.s.csound[i] = float(std::sqrt(10.0 / 9.0 * b.s.u[i]));
    b.s.z_o[i] = gas_z_o;
    b.s.z_fe[i] = gas_z_fe;
  }
  for (int k = 0; k < n_star; ++k) {
    const std::size_t i = b.n_gas + std::size_t(k);
    auto r = [&](uint32_t q) { return random_uniform(i, 0, kStreamSetup, q); };
    b.s.id[i] = 10 + std::size_t(k);
    b.s.type[i] = k % 2 ? kOldStar : kNewStar;
    b.s.pos[i] = {L * r(0), L * r(1), L * r(2)};
    b.s.vel[i] = {30.0 * (r(3) - 0.5), 30.0 * (r(4) - 0.5), 30.0 * (r(5) - 0.5)};
    b.s.vel0[i] = b.s.vel[i];
    b.s.initial_mass[i] = 1e4;
    b.s.mass[i] = k % 2 ? 0.9e4 : 1e4;
    b.s.birth_time[i] = k % 2 ? -birth_age_code : 0.0;
    b.s.birth_z[i] = 0.01;
    b.s.z_o[i] = star_z_o;
    b.s.z_fe[i] = star_z_fe;
  }
  return b;
}

struct Totals {
  double mass = 0, o = 0, fe = 0, energy = 0;
  Vec3d mom{0, 0, 0};
  double mom_scale = 0;  // sum m |v|
};

inline Totals totals(ParticleStore& s) {
  Totals t;
  const ParticleView p = s.view();
  for (std::size_t i = 0; i < p.n; ++i) {
    t.mass += p.mass[i];
    t.o += p.mass[i] * p.z_o[i];
    t.fe += p.mass[i] * p.z_fe[i];
    t.mom += p.mass[i] * p.vel[i];
    t.mom_scale += p.mass[i] * std::sqrt(norm2(p.vel[i]));
    t.energy += 0.5 * p.mass[i] * norm2(p.vel[i]) + (p.type[i] == kGas ? p.mass[i] * p.u[i] : 0.0);
  }
  return t;
}

inline FeedbackKernParams kern_params(const SspTable& table, const UnitSystem& u, int n_ngb) {
  FeedbackKernParams kp;
  kp.table = table.view();
  kp.time_to_yr = u.time_cgs() / cgs::year;
  kp.energy_per_sn = table.model().e_sn_erg / (cgs::Msun * u.velocity_cgs * u.velocity_cgs);
  kp.n_ngb = n_ngb;
  return kp;
}

}  // namespace mpsph::test
