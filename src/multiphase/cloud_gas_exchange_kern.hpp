// Cold <-> warm coupling of a cloud with the SPH gas around it (PHYSICS.md section 5): conductive
// evaporation and condensation (cloud_evaporation_kern.hpp) and drag (cloud_drag_kern.hpp), driven
// by the kernel-interpolated gas at the cloud. Pure MPSPH_HD functions shared by the OpenMP driver
// (cloud_gas_exchange.cpp) and the CUDA driver (cloud_gas_exchange_gpu.cu).
//
// A cloud i (type 2, active) has the N_B nearest gas particles j with weights
// w_j = m_j W(r_j, h*) / sum_k m_k W(r_k, h*) (feedback_weights, shared with SSP feedback). The gas
// at the cloud: rho_h = sum_k m_k W(r_k, h*), u_h = sum_j w_j u_j, v_h = sum_j w_j v_j, T_h =
// T(u_h), n_h = X_H rho_h / m_H. Over the cloud's step dt, in this order:
//  1. Mass exchange, dm = mdot dt (Cowie & McKee 1977).
//     Evaporation (dm < 0): the cloud loses e = min(|dm|, m); gas j receives w_j e with the cloud's
//     velocity and metal fractions, at u = u_h, as an inelastic merger (the kinetic energy the
//     merger dissipates heats j). The thermal energy e u_h is new: E_evaporation -= e u_h.
//     Condensation (dm > 0): gas j gives w_j c (its own v, u and metal fractions), the cloud takes
//     their sum, momentum and metal masses; c = min(dm, f min_j m_j / w_j), so no neighbour gives
//     more than the fraction f (condense_limit) of its mass to one cloud in one step. Many clouds
//     can share one gas particle (at the centre of a merger remnant 264 clouds had the same one
//     among their 50 nearest gas particles, which then gave 26 times its mass and went negative),
//     so the demands are granted per receiver first: gas j with demands D_j = sum_i w_ij c_i over
//     the clouds grants the fraction g_j = min(1, f m_j / D_j) of each, and cloud i condenses
//     c_i min_j g_j. No gas particle gives more than f of its mass in all; with no receiver
//     over-asked (g = 1) nothing changes. The gas' thermal energy c u_h and the kinetic energy the
//     cloud's merger dissipates leave the gas: E_evaporation += both.
//  2. With evaporation on, a cloud left with less than m_min_fraction of the mean mass of its gas
//  neighbours (PHYSICS.md:
//     half the SPH particle mass) turns back into an SPH particle in place (type 0, u = u_h, h =
//     h*, rho = rho_h; E_evaporation -= m u_h); one that evaporated completely is removed (its mass
//     went to the gas).
//  3. Drag on the cloud that stays: Delta v = drag_velocity_change, capped at the inelastic limit
//     of the receiver inertia M = (1 - f) min_j m_j / w_j (cloud_drag_kern.hpp; (1 - f) m_j bounds
//     j's mass after the step's condensation); gas j receives -w_j m Delta v.
//     The kinetic energy the pair dissipated, D = Q - sum_j Delta K_j (Q = -Delta K_cl the cloud's
//     loss, Delta K_j each receiver's gain, measured as the receivers take their impulses), is
//     shared by weight as heat: m_j Delta u_j = w_j D. Kinetic + thermal energy are then conserved
//     to round-off; sum D is reported as E_drag (kinetic energy dissipated) and minus the heat
//     given as E_drag_heat, which cancel in E_total. (Until 2026-11-26 each receiver took w_j Q -
//     Delta K_j, which contains -J_j . (v_j - v_h), J_j its impulse: a receiver moving along the
//     impulse faster than the mean gas got negative heat, the floor that kept its u >= u/2 added
//     energy that no account booked, and the ISM galaxy runs' E_total rose with E_drag.)
//  4. With multiphase.evaporation_courant > 0, the cloud that stays records the time-step
//     criterion dt <= C_evap m1 / |mdot(m1)| of its new mass in the same gas
//     (cloud_timestep_kern.hpp).
// Mass, momentum and metal masses are conserved to round-off: every receiver takes its shares in
// the clouds' order, first all condensation losses (with the state the clouds read), then the
// gains. Velocity changes are applied to vel and vel0, u changes to u and u0, so the corrector
// keeps them.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cooling/cooling_kern.hpp"
#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "feedback/feedback_kern.hpp"
#include "multiphase/cloud_drag_kern.hpp"
#include "multiphase/cloud_evaporation_kern.hpp"
#include "multiphase/cloud_timestep_kern.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

struct CloudGasParams {
  bool evaporation = false;     // multiphase.evaporation cowie_mckee
  double c_d = 0.0;             // drag coefficient C_D (0: no drag)
  double pi_sigma = 1.0;        // pi Sigma_cl [M/L^2]
  double length_to_pc = 1.0;    // R [pc] = length_to_pc R [L]
  double rate_to_code = 1.0;    // dm/dt [M/T] = rate_to_code dm/dt [g/s]
  double nH_per_rho = 1.0;      // n_H [cm^-3] = X_H nH_per_rho rho [M/L^3]
  double x_h_default = 0.7;     // X_H of gas without x_h
  MuModel mu{true, 0.59};       // T(u)
  double u_to_T = 1.0;          // T [K] = mu u_to_T u
  double gamma = 5.0 / 3.0;     // adiabatic index: sound speed of a cloud turned into gas
  double m_min_fraction = 0.5;  // a cloud below this fraction of its neighbours' mean mass -> gas
  double condense_limit = 0.1;  // f: most a neighbour gives one cloud per step, of its mass
  double m_max = 0.0;           // clouds condense only up to this mass [M] (0: no limit)
  bool u_integrated = false;    // a stage before integrated u over the step (cooling): the
                                // corrector leaves u alone, else it sets u from u0
  double evaporation_courant = 0.0;  // C_evap of dt <= C_evap m / |mdot| (0: no criterion)
};

// The gas at a cloud, kernel-interpolated over its receivers.
struct HotGas {
  double rho = 0.0, u = 0.0, T = 0.0, n_H = 0.0, h = 0.0, m_mean = 0.0;
  Vec3d v{0, 0, 0};
};

MPSPH_HD HotGas hot_gas_at(const CloudGasParams& cp, const ParticleView& p, const uint32_t* recv,
                           const double* w, int n, double rho, double h) {
  HotGas g;
  if (n == 0) return g;
  double x_h = 0.0, m = 0.0;
  for (int k = 0; k < n; ++k) {
    const std::size_t j = recv[k];
    g.u += w[k] * p.u[j];
    g.v += w[k] * p.vel[j];
    x_h += w[k] * (p.x_h[j] > 0.0 ? p.x_h[j] : cp.x_h_default);
    m += p.mass[j];
  }
  g.rho = rho;
  g.h = h;
  g.m_mean = m / double(n);
  g.T = temperature_from_u(cp.mu, cp.u_to_T, g.u);
  g.n_H = x_h * cp.nH_per_rho * rho;
  return g;
}

// What a cloud hands its receivers this step (each receiver takes the fraction w of it).
struct CloudGasSource {
  double dm_evap = 0.0;          // mass evaporated into the gas [M]
  double dm_cond = 0.0;          // mass condensed out of the gas [M]
  double z_o = 0.0, z_fe = 0.0;  // metal mass fractions of the evaporated mass (the cloud's)
  Vec3d v{0, 0, 0};              // its velocity (the cloud's before the drag)
  Vec3d v0{0, 0, 0};             // the same at the start of the step (vel0)
  double u_h = 0.0;              // its specific internal energy on arrival
  Vec3d impulse{0, 0, 0};        // momentum the gas receives from the drag [M V]
  double heat = 0.0;             // Q: kinetic energy the cloud lost to the drag [M V^2]
  double account = 0.0;          // E_evaporation of the cloud: thermal (+ kinetic) energy taken
                                 // out of the gas (> 0) or put in (< 0) [M V^2]
  int fate = 0;                  // kCloudStays, kCloudToGas, kCloudEvaporated
  int rung = 0;                  // the cloud's rung and step length: its receivers keep pace
  double step = 0.0;             // (follow_cloud_steps)
};

constexpr int kCloudStays = 0, kCloudToGas = 1, kCloudEvaporated = 2;

MPSPH_HD double cloud_mass_rate(const CloudGasParams& cp, const HotGas& g, double m) {
  if (!cp.evaporation) return 0.0;
  const double R_pc = std::sqrt(m / cp.pi_sigma) * cp.length_to_pc;
  return cm77_mass_rate(g.T, g.n_H, R_pc) * cp.rate_to_code;
}

// The smallest receiver inertia of the drag, (1 - f) min_j s_j m_j / w_j (0: no receiver), with
// s_j = receiver_drag_share of gas j: the part of j's inertia this cloud may use.
MPSPH_HD double drag_receiver_inertia(const CloudGasParams& cp, const ParticleView& p,
                                      const uint32_t* recv, const double* w, const double* share,
                                      int n) {
  double M = 0.0;
  for (int k = 0; k < n; ++k)
    if (w[k] > 0.0) {
      const double Mk = share[k] * p.mass[recv[k]] / w[k];
      if (M == 0.0 || Mk < M) M = Mk;
    }
  return (1.0 - cp.condense_limit) * M;
}

// The share of gas j's inertia each of the n_clouds active clouds that drag on j in one exchange
// may use, 1 / n_clouds. Each cloud's impulse then changes j's velocity by at most 1 / n_clouds of
// that cloud's |v_rel| (the inelastic cap on the inertia s_j m_j / w_j), so all of them together
// by at most the largest |v_rel| among them. (With the whole inertia for every cloud, a gas
// particle of 7e5 Msun among the receivers of 820 clouds of 6.5e9 Msun in all, at the centre of a
// merger remnant, took 820 capped impulses at once and left at 1.3e4 km/s; docs/multiphase.md.)
MPSPH_HD double receiver_drag_share(std::size_t n_clouds) {
  return n_clouds > 1 ? 1.0 / double(n_clouds) : 1.0;
}

// The condensation dm (> 0) limited so that no receiver gives more than f of its mass to this one
// cloud: min(dm, f m_j / w_j).
MPSPH_HD double condensation_wanted(const CloudGasParams& cp, const ParticleView& p,
                                    const uint32_t* recv, const double* w, int n, double dm) {
  double c = dm;
  for (int k = 0; k < n; ++k)
    if (w[k] > 0.0 && cp.condense_limit * p.mass[recv[k]] < c * w[k])
      c = cp.condense_limit * p.mass[recv[k]] / w[k];
  return c;
}

// What cloud i asks of its receivers over dt, c_i (0 when it evaporates or is no cloud): the
// condensation rate times dt, at most what takes it to m_max (multiphase.m_max_Msun, the mass
// above which clouds no longer coalesce either).
MPSPH_HD double cloud_condensation_demand(const CloudGasParams& cp, const ParticleView& p,
                                          std::size_t i, const uint32_t* recv, const double* w,
                                          int n, double rho, double h, double dt) {
  if (n == 0 || p.type[i] != kCloud) return 0.0;
  const HotGas g = hot_gas_at(cp, p, recv, w, n, rho, h);
  double dm = cloud_mass_rate(cp, g, p.mass[i]) * dt;
  if (cp.m_max > 0.0 && dm > cp.m_max - p.mass[i]) dm = cp.m_max - p.mass[i];
  return dm > 0.0 ? condensation_wanted(cp, p, recv, w, n, dm) : 0.0;
}

// The fraction g_j of every demand that gas j of mass m_j grants, given the sum of the demands on
// it, D_j = sum_i w_ij c_i (summed in cloud order).
MPSPH_HD double receiver_condensation_grant(const CloudGasParams& cp, double m_j, double demand) {
  const double limit = cp.condense_limit * m_j;
  return demand > limit ? limit / demand : 1.0;
}

// The most cloud i may condense: its demand times the smallest grant among its n receivers.
MPSPH_HD double cloud_condensation_cap(double demand, const double* grant, int n) {
  double g = 1.0;
  for (int k = 0; k < n; ++k) g = grant[k] < g ? grant[k] : g;
  return demand * g;
}

// Steps 1-3 of the header for cloud i over dt: writes the cloud (mass, velocity and vel0, metals,
// type) and returns what its receivers take. Reads the receivers, writes none of them.
// `condensed`: the mass it takes if it condenses, its demand within its receivers' grants
// (cloud_condensation_cap of cloud_condensation_demand, which reads the same state); `share`: its
// receivers' receiver_drag_share, per slot.
MPSPH_HD CloudGasSource cloud_gas_step(const CloudGasParams& cp, const ParticleView& p,
                                       std::size_t i, const uint32_t* recv, const double* w,
                                       const double* share, int n, double rho, double h, double dt,
                                       double condensed) {
  CloudGasSource src;
  if (n == 0 || p.type[i] != kCloud) return src;
  src.rung = int(p.rung[i]);
  src.step = dt;
  const HotGas g = hot_gas_at(cp, p, recv, w, n, rho, h);
  const double m = p.mass[i];
  const Vec3d v = p.vel[i], v0 = p.vel0[i];
  double m1 = m;
  Vec3d v1 = v, v1_0 = v0;
  const double dm = cloud_mass_rate(cp, g, m) * dt;
  if (dm < 0.0) {
    const double e = -dm < m ? -dm : m;
    src.dm_evap = e;
    src.z_o = p.z_o[i];
    src.z_fe = p.z_fe[i];
    src.v = v;
    src.v0 = v0;
    src.u_h = g.u;
    src.account = -e * g.u;
    m1 = m - e;
  } else if (dm > 0.0) {
    const double c = condensed;
    Vec3d mom = m * v, mom0 = m * v0;
    double mo = m * p.z_o[i], mfe = m * p.z_fe[i], k0 = 0.5 * m * norm2(v), th = 0.0, taken = 0.0;
    for (int k = 0; k < n; ++k) {
      const std::size_t j = recv[k];
      const double dmj = w[k] * c;  // exactly what receive_condensation takes from j
      taken += dmj;
      mom += dmj * p.vel[j];
      mom0 += dmj * p.vel0[j];
      mo += dmj * p.z_o[j];
      mfe += dmj * p.z_fe[j];
      k0 += 0.5 * dmj * norm2(p.vel[j]);
      th += dmj * p.u[j];
    }
    src.dm_cond = c;
    m1 = m + taken;  // summed apart: one rounding at the cloud's mass
    v1 = (1.0 / m1) * mom;
    v1_0 = (1.0 / m1) * mom0;
    src.account = th + (k0 - 0.5 * m1 * norm2(v1));
    p.z_o[i] = mo / m1;
    p.z_fe[i] = mfe / m1;
  }
  if (cp.evaporation && m1 < cp.m_min_fraction * g.m_mean) {
    p.mass[i] = m1;
    if (!(m1 > 0.0)) {
      src.fate = kCloudEvaporated;
      p.mass[i] = 0.0;
      p.type[i] = kRemoved;
      return src;
    }
    // Back to gas, at the hot gas' u (new thermal energy m1 u_h) and the neighbours' h* and rho_h.
    src.fate = kCloudToGas;
    src.account -= m1 * g.u;
    keep_forces(p, i, m, m1);
    p.type[i] = kGas;
    p.vel0[i] = v1_0;
    p.vel[i] = v1;
    p.u[i] = p.u0[i] = g.u;
    p.dudt[i] = p.dudt0[i] = 0.0;
    p.h[i] = p.h0[i] = float(g.h);
    p.rho[i] = p.rho0[i] = float(g.rho);
    p.divv[i] = 0.0f;
    p.curlv[i] = 0.0f;
    p.balsara[i] = 0.0f;
    p.csound[i] = float(std::sqrt(cp.gamma * (cp.gamma - 1.0) * (g.u > 0.0 ? g.u : 0.0)));
    return src;
  }
  Vec3d v2 = v1, v2_0 = v1_0;
  if (cp.c_d > 0.0) {
    const Vec3d dv = drag_velocity_change(cp.c_d, std::sqrt(m1 / cp.pi_sigma), g.rho, m1, v1 - g.v,
                                          dt, drag_receiver_inertia(cp, p, recv, w, share, n));
    v2 = v1 + dv;
    v2_0 = v1_0 + dv;
    src.impulse = -m1 * dv;
    src.heat = -0.5 * m1 * (norm2(v2) - norm2(v1));
  }
  if (m1 != m) keep_forces(p, i, m, m1);
  p.mass[i] = m1;
  p.vel0[i] = v2_0;
  p.vel[i] = v2;
  // The time-step criterion of the cloud that stays: its mass and rate at the end of the step, in
  // the same gas (cloud_timestep_kern.hpp).
  if (cp.evaporation && cp.evaporation_courant > 0.0)
    record_cloud_step_rate(
        p, i, evaporation_step_rate(m1, cloud_mass_rate(cp, g, m1), cp.evaporation_courant));
  return src;
}

// Pass 1 of a receiver: gas j gives the share w of a cloud's condensation (its v, u and metal
// fractions stay).
MPSPH_HD void receive_condensation(const ParticleView& p, std::size_t j, const CloudGasSource& s,
                                   double w) {
  if (!(s.dm_cond > 0.0)) return;
  const double m = p.mass[j], m1 = m - w * s.dm_cond;
  keep_forces(p, j, m, m1);
  p.mass[j] = m1;
}

// The u that ends receiver j's step: u after an integrating stage (cooling), else the
// corrector's from u0. A change of u goes to both u and u0.
MPSPH_HD double receiver_end_u(const CloudGasParams& cp, const ParticleView& p, std::size_t j) {
  return cp.u_integrated ? p.u[j] : p.u0[j];
}

// Pass 2: gas j takes the share w of a cloud's evaporated mass (merging with it inelastically:
// its thermal energy and the merger's kinetic loss heat j) and the share w of its drag impulse.
// Returns the kinetic energy the impulse gave j, Delta K_j [M V^2]; the drag's heat comes in pass 3
// (receive_drag_heat), once the cloud's dissipation is known.
MPSPH_HD double receive_evaporation_drag(const CloudGasParams& cp, const ParticleView& p,
                                         std::size_t j, const CloudGasSource& s, double w) {
  if (!(s.dm_evap > 0.0) && norm2(s.impulse) == 0.0) return 0.0;
  const double m = p.mass[j], dm = w * s.dm_evap, m1 = m + dm;
  const Vec3d v = p.vel[j];
  const Vec3d v1 = (1.0 / m1) * (m * v + dm * s.v);
  const Vec3d v2 = v1 + (w / m1) * s.impulse;
  const Vec3d v2_0 = (1.0 / m1) * (m * p.vel0[j] + dm * s.v0) + (w / m1) * s.impulse;
  // m1 (u_end + du) = m u_end + heat (>= 0: the evaporated gas' u_h and the merger's loss).
  const double u_end = receiver_end_u(cp, p, j);
  const double heat = dm * s.u_h + 0.5 * m * dm / m1 * norm2(v - s.v);
  const double du = (heat - dm * u_end) / m1;
  if (dm > 0.0) keep_forces(p, j, m, m1);
  p.mass[j] = m1;
  p.vel0[j] = v2_0;
  p.vel[j] = v2;
  p.u[j] += du;
  p.u0[j] += du;
  p.z_o[j] = (m * p.z_o[j] + dm * s.z_o) / m1;
  p.z_fe[j] = (m * p.z_fe[j] + dm * s.z_fe) / m1;
  return 0.5 * m1 * (norm2(v2) - norm2(v1));
}

// The kinetic energy a cloud's drag dissipated: the cloud's loss Q minus what its n receivers
// gained, D = Q - sum_k Delta K_k (Delta K_k from pass 2, in slot order). D is Galilean
// invariant and, with the drag's inelastic cap, positive (docs/multiphase.md).
MPSPH_HD double drag_dissipation(const CloudGasSource& s, const double* dk, int n) {
  double d = s.heat;
  for (int k = 0; k < n; ++k) d -= dk[k];
  return d;
}

// The finest cloud a receiver took shares from: its rung and step length.
struct CloudPace {
  int rung = 0;
  double step = 0.0;  // 0: none
};

MPSPH_HD void note_cloud_pace(const CloudGasSource& s, CloudPace* pace) {
  if (!(s.step > 0.0)) return;
  if (s.rung > pace->rung) pace->rung = s.rung;
  if (pace->step == 0.0 || s.step < pace->step) pace->step = s.step;
}

// Under block steps, receiver j keeps pace with the finest cloud it took shares from, so that no
// cloud changes it again in the middle of one of its steps (at the end of the receiver pass): an
// inactive receiver is synchronised at `now` on at least the cloud's rung (feedback_sync with
// min_rung = pace.rung), an active one (its step ends now) records the limit dt <= the cloud's
// step for its time-step stage ("cloud steps", limit_receiver_step). Measured (docs/multiphase.md,
// "Energy and mass bookkeeping"): with receivers on coarser rungs than their clouds, the drag's
// work was four to five times that of the global scheme and stayed in the particles (E_total of
// the ISM disk rose with E_drag); with this the drift and the excess work are gone.
MPSPH_HD void follow_cloud_steps(const ParticleView& p, std::size_t j, const CloudPace& pace,
                                 double gamma, double courant, int64_t now, double length,
                                 bool all) {
  if (!all && pace.step > 0.0 && p.ti_end[j] == now) record_cloud_step_rate(p, j, 1.0 / pace.step);
  feedback_sync(p, j, gamma, courant, now, length, all, pace.rung);
}

// Pass 3: gas j takes the share w of a cloud's drag dissipation D as heat. D < 0 (possible only
// when one receiver's velocity was changed by several clouds in the step) may at most halve j's
// thermal energy (the integrator's rule, integrator_kern.hpp); returns the energy the floor added
// (0 unless it acted).
MPSPH_HD double receive_drag_heat(const CloudGasParams& cp, const ParticleView& p, std::size_t j,
                                  double dissipation, double w) {
  const double heat = w * dissipation;
  if (heat == 0.0) return 0.0;
  const double floor = -0.5 * p.mass[j] * receiver_end_u(cp, p, j);
  const double given = heat > floor ? heat : floor;
  const double du = given / p.mass[j];
  p.u[j] += du;
  p.u0[j] += du;
  return given - heat;
}

}  // namespace mpsph
