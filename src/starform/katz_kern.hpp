// Single-phase star formation after Katz (1992, ApJ 391, 502; Katz, Weinberg & Hernquist 1996,
// ApJS 105, 19), model `katz`, per gas particle at the end of its step. A particle may form stars
// when
//   - its flow converges: div v < 0,
//   - it is Jeans unstable: its sound-crossing time exceeds its dynamical time,
//     h / c > 1 / sqrt(4 pi G rho) (Katz 1992, sec. 2.3),
//   - it cools faster than it falls: t_cool = u / |du/dt_rad| < t_ff (only with cooling on: the
//     cooling stage sets du/dt_rad; without cooling the gas is taken to cool at once and the
//     criterion is dropped),
//   - it is dense and cold: n_H > n_SF and T < T_SF,
// with t_ff = sqrt(3 pi / (32 G rho)). Such gas forms stars at the rate drho_*/dt = c* rho / t_ff:
// the whole particle becomes a star (type 4, in place) with probability 1 - exp(-c* dt / t_ff)
// (Springel & Hernquist 2003, eq. 39 with one generation; Schaye & Dalla Vecchia 2008), so the
// expected mass formed is the rate's and every star has its parent's mass, position, velocity and
// metals.
#pragma once

#include <cmath>
#include <cstddef>

#include "cooling/cooling_kern.hpp"
#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "starform/cloud_starform_kern.hpp"
#include "starform/star_birth_kern.hpp"
#include "timestep/integrator_kern.hpp"

namespace mpsph {

struct KatzParams {
  double c_star;
  double G;            // [code]
  double n_sf;         // cm^-3
  double T_sf;         // K
  MuModel mu;          // T(u)
  double u_to_T;       // T [K] = mu u_to_T u (cooling_kern.hpp temperature_from_u)
  double nH_per_rho;   // n_H [cm^-3] = X_H nH_per_rho rho [code]
  double x_h_default;  // X_H of particles without x_h
  bool u_integrated;   // a module stage before this one integrated u over the step (cooling)
  bool cooling_time;   // apply t_cool < t_ff (cooling on)
};

// Which Katz criteria a particle fails, one bit each (0: it may form stars).
enum KatzCriterion : unsigned {
  kKatzDiverging = 1u << 0,
  kKatzJeansStable = 1u << 1,
  kKatzSlowCooling = 1u << 2,
  kKatzTooThin = 1u << 3,
  kKatzTooHot = 1u << 4,
};

// The criteria for a particle of density rho [code], smoothing length h, sound speed c [code],
// div v, temperature T [K], hydrogen density n_H [cm^-3], radiative du/dt and u [code].
MPSPH_HD unsigned katz_failures(const KatzParams& p, double rho, double h, double c, double div_v,
                                double T, double n_H, double dudt_rad, double u) {
  unsigned f = 0;
  if (!(div_v < 0.0)) f |= kKatzDiverging;
  // h / c > 1 / sqrt(4 pi G rho), written without division (c may be 0 for cold gas).
  if (!(h * std::sqrt(4.0 * kStarformPi * p.G * rho) > c)) f |= kKatzJeansStable;
  if (p.cooling_time) {
    // t_cool = u / |du/dt_rad| < t_ff; heating (du/dt_rad >= 0) never cools.
    const double t_ff = free_fall_time(rho, p.G);
    if (!(dudt_rad < 0.0 && u < -dudt_rad * t_ff)) f |= kKatzSlowCooling;
  }
  if (!(n_H > p.n_sf)) f |= kKatzTooThin;
  if (!(T < p.T_sf)) f |= kKatzTooHot;
  return f;
}

struct KatzResult {
  double mass;     // stellar mass formed [code mass]
  double thermal;  // thermal energy of the gas turned into the star [code energy]
};

// Gas particle i at the end of its step of length dt, in (sub)step `step` at `time`: its u as the
// step leaves it (the cooling stage's, or the corrector's of u0, dudt0, dudt), T from that u, n_H
// from rho. Turns it into a star when the criteria hold and the draw says so.
MPSPH_HD KatzResult katz_form_star(const KatzParams& p, const ParticleView& s, std::size_t i,
                                   double dt, long step, double time) {
  KatzResult r{0.0, 0.0};
  if (s.type[i] != kGas || !(s.rho[i] > 0.0f)) return r;
  const double u_end = p.u_integrated ? s.u[i] : correct_energy(s.u0[i], s.dudt0[i], s.dudt[i], dt);
  const double T = temperature_from_u(p.mu, p.u_to_T, u_end);
  const double x_h = s.x_h[i] > 0.0 ? s.x_h[i] : p.x_h_default;
  const double rho = double(s.rho[i]);
  const double n_H = x_h * p.nH_per_rho * rho;
  if (katz_failures(p, rho, double(s.h[i]), double(s.csound[i]), double(s.divv[i]), T, n_H,
                    s.dudt_cool[i], u_end) != 0)
    return r;
  const double t_ff = free_fall_time(rho, p.G);
  if (!star_formation_draw(s, i, step, event_probability(p.c_star * dt / t_ff))) return r;
  r.mass = s.mass[i];
  r.thermal = turn_into_star(s, i, time, u_end);
  return r;
}

}  // namespace mpsph
