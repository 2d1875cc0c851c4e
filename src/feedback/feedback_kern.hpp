// SSP feedback (PHYSICS.md section 7), the per-star and per-gas functions shared by the OpenMP
// driver (feedback.cpp) and the CUDA driver (feedback_gpu.cu).
//
// Star i (type 3 or 4 with initial_mass > 0) whose step [t - dt, t] ends now returns what its
// population released over its ages [t - dt - t_birth, t - t_birth] (the SSP table's cumulative
// release at both ends, times its initial mass; ages before birth count as 0):
//   dm = M0 dR,  dO = M0 dM_O + Z_O,i dm,  dFe = M0 dM_Fe + Z_Fe,i dm,  dE = E_SN M0 dN_SN,
// i.e. the ejecta carry the star's birth composition plus the newly made O and Fe (the RVN96 and
// WW95 numbers are treated as net yields). The star loses dm (its velocity and composition stay).
// The release goes to its N_B nearest gas particles with weights
//   w_j = m_j W(r_j, h*) / sum_k m_k W(r_k, h*),  2 h* halfway between the N_B-th and the
//   (N_B + 1)-th nearest, so exactly N_B lie inside the kernel support.
// A receiving gas particle j takes its share as an inelastic merger with ejecta moving with the
// star (velocity v_s): m' = m + dm_j, v' = (m v + dm_j v_s) / m', and its thermal energy gains the
// SN energy and the kinetic energy the merger dissipates,
//   m' u' = m u + dE_j + 1/2 m dm_j / m' |v - v_s|^2,
// so mass, momentum, O and Fe are conserved to round-off and the total energy changes by exactly
// the SN energy (the E_feedback account). The changes of v and u are applied to the step's base
// (vel0, u0) too, so the corrector and an inactive particle's prediction keep them.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback_grid_kern.hpp"
#include "feedback/ssp_table_kern.hpp"
#include "sph/kernel_kern.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

struct FeedbackKernParams {
  SspTableView table;
  double time_to_yr = 0.0;  // code time -> yr
  // Code energy of one SN per code mass formed, times Msun in code mass: E_SN / (Msun_g v_u^2),
  // so that dE = energy_per_sn * M0 * dN (dN per Msun formed, M0 in code mass).
  double energy_per_sn = 0.0;
  int n_ngb = 50;  // N_B
};

struct StarRelease {
  double dm = 0.0, d_o = 0.0, d_fe = 0.0, de = 0.0;  // code mass, code energy
  Vec3d v{0, 0, 0};                                  // the star's velocity
};

MPSPH_HD bool is_feedback_star(const ParticleView& p, std::size_t i) {
  return (p.type[i] == kOldStar || p.type[i] == kNewStar) && p.initial_mass[i] > 0.0;
}

// What star i released over its step [t_end - dt, t_end] (code time).
MPSPH_HD StarRelease star_release(const FeedbackKernParams& kp, const ParticleView& p,
                                  std::size_t i, double t_end, double dt) {
  StarRelease r;
  r.v = p.vel[i];
  const double a1 = (t_end - p.birth_time[i]) * kp.time_to_yr;
  if (!(a1 > 0.0)) return r;
  const double a0 = a1 - dt * kp.time_to_yr;
  const double z = p.birth_z[i];
  const SspRelease c1 = ssp_table_cumulative(kp.table, a1, z);
  const SspRelease c0 = ssp_table_cumulative(kp.table, a0 > 0.0 ? a0 : 0.0, z);
  const double m0 = p.initial_mass[i];
  r.dm = m0 * (c1.q[kSspMassReturned] - c0.q[kSspMassReturned]);
  // Never more than the star holds (only reachable with initial conditions whose masses disagree
  // with their initial masses and ages).
  const double scale = r.dm > 0.5 * p.mass[i] ? 0.5 * p.mass[i] / r.dm : 1.0;
  r.dm *= scale;
  r.d_o = scale * m0 * (c1.q[kSspOxygen] - c0.q[kSspOxygen]) + p.z_o[i] * r.dm;
  r.d_fe = scale * m0 * (c1.q[kSspIron] - c0.q[kSspIron]) + p.z_fe[i] * r.dm;
  r.de = scale * kp.energy_per_sn * m0 *
         ((c1.q[kSspNSnII] + c1.q[kSspNSnIa]) - (c0.q[kSspNSnII] + c0.q[kSspNSnIa]));
  return r;
}

// The weights of the source particle (a star, a cloud) at x over its nearest gas s (ascending,
// s.n entries, at most N_B + 1): w[k] for the first min(s.n, n_ngb) of them (summing to 1).
// Returns how many receive. Where given, *rho gets the kernel sum sum_k m_k W(r_k, h*) (the SPH
// density at x [M/L^3]; 0 when the weights fell back to the masses) and *h the h* of the kernel.
MPSPH_HD int feedback_weights(const ParticleView& p, const NeighbourSet& s, int n_ngb, double* w,
                              double* rho = nullptr, double* h = nullptr) {
  const int n = s.n < n_ngb ? s.n : n_ngb;
  if (n == 0) return 0;
  // 2 h*: halfway to the next one outside, or 10% beyond the farthest when there are no more.
  const double r_in = std::sqrt(s.d2[n - 1]);
  const double support = s.n > n ? 0.5 * (r_in + std::sqrt(s.d2[n])) : 1.1 * r_in;
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    w[k] =
        support > 0.0 ? p.mass[s.j[k]] * kernel_w<double>(std::sqrt(s.d2[k]), 0.5 * support) : 0.0;
    sum += w[k];
  }
  if (rho) *rho = sum > 0.0 ? sum : 0.0;
  if (h) *h = 0.5 * support;
  if (!(sum > 0.0)) {  // all at the star's position (or at the support's edge): by mass
    sum = 0.0;
    for (int k = 0; k < n; ++k) sum += (w[k] = p.mass[s.j[k]]);
  }
  for (int k = 0; k < n; ++k) w[k] /= sum;
  return n;
}

// Star i loses the ejecta dm of its release, with its forces kept (keep_forces: the gravity its
// partners felt from it was computed with its old mass).
MPSPH_HD void lose_ejecta(const ParticleView& p, std::size_t i, double dm) {
  const double m = p.mass[i], m1 = m - dm;
  keep_forces(p, i, m, m1);
  p.mass[i] = m1;
}

// Gas particle j takes the fraction w of release r (see the header comment).
MPSPH_HD void receive_feedback(const ParticleView& p, std::size_t j, const StarRelease& r,
                               double w) {
  const double m = p.mass[j], dm = w * r.dm, m1 = m + dm;
  const Vec3d v = p.vel[j];
  const Vec3d v1 = (1.0 / m1) * (m * v + dm * r.v);
  const double heat = w * r.de + 0.5 * m * dm / m1 * norm2(v - r.v);
  const double du = (heat - dm * p.u[j]) / m1;  // m1 (u + du) = m u + heat
  keep_forces(p, j, m, m1);
  p.mass[j] = m1;
  p.vel0[j] += v1 - v;
  p.vel[j] = v1;
  p.u[j] += du;
  p.u0[j] += du;
  p.z_o[j] = (m * p.z_o[j] + w * r.d_o) / m1;
  p.z_fe[j] = (m * p.z_fe[j] + w * r.d_fe) / m1;
}

// After gas particle j received: its sound speed for its new u (adiabatic EOS, index gamma) raises
// csound, which the time-step criteria read. Under block steps (not `all`) an inactive receiver is
// synchronised at `now` (Durier & Dalla Vecchia 2012, as SWIFT does it; block_step_kern.hpp
// sync_particle): its current step ends there and a new one begins from its state after the
// injection, on the rung of C h / c (at least `min_rung`: the cloud exchange's receivers keep
// pace with their clouds, follow_cloud_steps) when that is shorter than its own. So the heated
// state's du/dt and forces act only after the injection, and on the time step it needs. Returns 1
// if the receiver moved to a shorter rung.
MPSPH_HD int feedback_sync(const ParticleView& p, std::size_t j, double gamma, double courant,
                           int64_t now, double length, bool all, int min_rung = 0) {
  const double u = p.u[j] > 0.0 ? p.u[j] : 0.0;
  const double c = std::sqrt(gamma * (gamma - 1.0) * u);
  if (double(p.csound[j]) < c) p.csound[j] = float(c);
  if (all || p.ti_end[j] == now) return 0;
  const int courant_rung = c > 0.0 ? rung_for_dt(courant * double(p.h[j]) / c, length) : 0;
  const int want = courant_rung > min_rung ? courant_rung : min_rung;
  const int woken = want > int(p.rung[j]);
  sync_particle(p, j, now, want);
  return woken;
}

}  // namespace mpsph
