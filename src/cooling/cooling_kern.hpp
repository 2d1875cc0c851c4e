// Radiative cooling of one gas particle (PHYSICS.md section 4), for the OpenMP loop (cooling.cpp)
// and the CUDA kernel alike.
//
// Net radiative rate per volume, erg cm^-3 s^-1 (positive = heating):
//   L(T) = n_H Gamma - n_H^2 Lambda(T),
//   Lambda = Lambda_N(T, [Fe/H]) (n_e/n_H)(n_t/n_H)   T >= 1e4 K, Sutherland & Dopita 1993 CIE,
//   Lambda = Gamma_KI (1e7 exp(-1.184e5/(T+1000)) + 1.4e-2 sqrt(T) exp(-92/T))
//                                                     T <  1e4 K, Koyama & Inutsuka 2002,
//   Gamma_KI = 2e-26 erg/s; Gamma is the optional heating per hydrogen atom (cooling.heating).
// Specific rate: du/dt_rad = L/rho. Temperature T = (gamma-1) mu m_H u / k_B.
//
// SD93 interpolation: bilinear in (log T, [Fe/H]) of log10 Lambda_N, log10 n_e/n_H and
// log10 n_t/n_H, so Lambda is a piecewise power law in T. Clamped at the table edges: log T above
// 8.5 uses the 8.5 row; [Fe/H] above +0.5 uses the +0.5 table. Between the metal-free table
// ([Fe/H] = -inf) and [Fe/H] = -3 the weight of the -3 table is Z/Z(-3) = 10^([Fe/H]+3), linear
// in the metal content (metal-line cooling scales with Z), so -inf is a node and every finite
// [Fe/H] interpolates continuously.
//
// Integration over a step dt: du/dt = a + du/dt_rad(u), a = hydro du/dt (constant over the step),
// solved implicitly (bisection-safeguarded false position on the backward-Euler equation,
// GADGET-2 style) in adaptive substeps: each substep is done once with h and twice with h/2; their
// difference is the local error estimate (kept below `tolerance` relative to u) and their
// Richardson combination 2 u_{h/2} - u_h (second order) is the accepted value. Each substep is
// L-stable, so any dt is stable; the error control makes it accurate for dt far above the cooling
// time, and a dt much below the cooling time costs one substep.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// Solar iron and oxygen to hydrogen mass ratios of Anders & Grevesse (1989), the abundances of
// SD93: log eps(Fe) = 7.67, log eps(O) = 8.93, times the atomic masses 55.845 and 15.999 over
// 1.008. [Fe/H] = log10(X_Fe/X_H) - log10(X_Fe/X_H)_sun (PHYSICS.md section 4).
constexpr double kSolarFeToH = 2.5913e-3;
constexpr double kSolarOToH = 1.3509e-2;

constexpr double kCoolingTableTmin = 1e4;  // K: SD93 above, Koyama & Inutsuka (2002) below
constexpr double kGammaKI02 = 2e-26;       // erg/s, the heating rate of KI02's fit

// mu(T) for galaxies (PHYSICS.md section 4): neutral below 8000 K, ionised above 1.5e4 K, linear
// in T between (so that u ~ T/mu(T) stays monotonic and T(u) has a closed form).
constexpr double kMuNeutral = 1.22;
constexpr double kMuIonised = 0.59;
constexpr double kMuTNeutral = 8000.0;
constexpr double kMuTIonised = 1.5e4;

// The SD93 tables on one uniform log T grid (host or device pointers; see cooling_table.hpp).
// Arrays are [iz * n_logT + it].
struct CoolingTableView {
  const double* log_lambda_n;  // log10 Lambda_N = Lambda/(n_e n_t) [erg cm^3 s^-1]
  const double* log_ne;        // log10 n_e/n_H
  const double* log_nt;        // log10 n_t/n_H (all ions)
  const double* feh;           // [Fe/H] of each table, ascending; feh[0] = -inf (metal-free)
  int n_feh;
  int n_logT;
  double logT_min;
  double dlogT;
};

struct MuModel {
  bool variable;  // mu(T) as above; else the constant mu
  double mu;
};

// Everything the per-particle functions need, in the run's code units.
struct CoolingKernelParams {
  CoolingTableView table;
  MuModel mu;
  bool enabled;          // false: cooling.model none (adiabatic update only)
  bool particle_metals;  // [Fe/H] and X_H from the particle's fields (else the defaults)
  double feh_default;    // [Fe/H] for fixed metals or particles with x_h = 0
  double x_h_default;    // X_H likewise
  double u_to_T;         // T [K] = mu u_to_T u: (gamma-1) m_H U_V^2 / k_B
  double nH_per_rho;     // n_H [cm^-3] = X_H nH_per_rho rho: U_rho / m_H
  double dudt_per_rate;  // du/dt [code] = dudt_per_rate L / rho: U_t / (U_rho U_V^2)
  double heating;        // Gamma [erg/s] per hydrogen atom
  double u_floor;        // u at the temperature floor [code]
  double tolerance;      // relative local error per substep
  int max_substeps;      // work bound per particle and step (then one last L-stable substep)
};

// ------------------------------------------------------------------------ composition, T(u)

// [Fe/H] from mass fractions; -inf for z_fe = 0 (the metal-free table).
MPSPH_HD double feh_from_mass_fractions(double x_h, double z_fe) {
  return std::log10(z_fe / x_h) - std::log10(kSolarFeToH);
}

// The inverse: iron and oxygen mass fractions of a scaled-solar composition with hydrogen mass
// fraction x_h and [Fe/H] = feh (O/Fe solar; feh = -inf gives 0, -99 metal-free to 1e-96).
struct MetalFractions {
  double z_fe, z_o;
};
MPSPH_HD MetalFractions scaled_solar_metals(double x_h, double feh) {
  const double scale = std::pow(10.0, feh);
  return {x_h * kSolarFeToH * scale, x_h * kSolarOToH * scale};
}

MPSPH_HD double mean_molecular_weight(const MuModel& m, double T) {
  if (!m.variable) return m.mu;
  if (T <= kMuTNeutral) return kMuNeutral;
  if (T >= kMuTIonised) return kMuIonised;
  return kMuNeutral + (kMuIonised - kMuNeutral) * (T - kMuTNeutral) / (kMuTIonised - kMuTNeutral);
}

// Inverts u = T/(mu(T) u_to_T) exactly: with mu = mu1 + s (T - T1) in the transition,
// T = x (mu1 - s T1)/(1 - x s), x = u_to_T u. (A fixed-point iteration T <- x mu(T) diverges there:
// |x dmu/dT| = 2.3 at 1.5e4 K.)
MPSPH_HD double temperature_from_u(const MuModel& m, double u_to_T, double u) {
  const double x = u_to_T * u;  // T/mu
  if (!m.variable) return m.mu * x;
  if (x * kMuNeutral <= kMuTNeutral) return kMuNeutral * x;
  if (x * kMuIonised >= kMuTIonised) return kMuIonised * x;
  const double s = (kMuIonised - kMuNeutral) / (kMuTIonised - kMuTNeutral);
  return x * (kMuNeutral - s * kMuTNeutral) / (1.0 - x * s);
}

MPSPH_HD double u_from_temperature(const MuModel& m, double u_to_T, double T) {
  return T / (mean_molecular_weight(m, T) * u_to_T);
}

// ------------------------------------------------------------------------ table interpolation

// Position in the metallicity direction: value = (1 - w) table[iz] + w table[iz + 1].
struct FehWeight {
  int iz;
  double w;
};

MPSPH_HD FehWeight feh_weight(const CoolingTableView& t, double feh) {
  if (!(feh >= t.feh[1])) return {0, std::pow(10.0, feh - t.feh[1])};  // Z/Z(feh[1]); 0 at -inf
  if (feh >= t.feh[t.n_feh - 1]) return {t.n_feh - 2, 1.0};            // clamp above
  int iz = 1;
  while (iz < t.n_feh - 2 && feh >= t.feh[iz + 1]) ++iz;
  return {iz, (feh - t.feh[iz]) / (t.feh[iz + 1] - t.feh[iz])};
}

struct LogTWeight {
  int it;
  double w;
};

MPSPH_HD LogTWeight logT_weight(const CoolingTableView& t, double logT) {
  const double x = (logT - t.logT_min) / t.dlogT;
  if (!(x > 0.0)) return {0, 0.0};                            // clamp below (not used: KI02 there)
  if (x >= double(t.n_logT - 1)) return {t.n_logT - 2, 1.0};  // clamp above log T = 8.5
  const int it = int(x);
  return {it, x - double(it)};
}

MPSPH_HD double table_bilinear(const double* a, const CoolingTableView& t, const LogTWeight& tw,
                               const FehWeight& zw) {
  const double* lo = a + zw.iz * t.n_logT + tw.it;
  const double* hi = lo + t.n_logT;
  const double v_lo = lo[0] + tw.w * (lo[1] - lo[0]);
  const double v_hi = hi[0] + tw.w * (hi[1] - hi[0]);
  return v_lo + zw.w * (v_hi - v_lo);
}

// Lambda_N(T, [Fe/H]) [erg cm^3 s^-1] from the tables (T >= 1e4 K).
MPSPH_HD double sd93_lambda_n(const CoolingTableView& t, double T, double feh) {
  return std::pow(
      10.0, table_bilinear(t.log_lambda_n, t, logT_weight(t, std::log10(T)), feh_weight(t, feh)));
}

// Lambda/n_H^2 = Lambda_N (n_e/n_H)(n_t/n_H) [erg cm^3 s^-1] (T >= 1e4 K).
MPSPH_HD double sd93_lambda_nH2(const CoolingTableView& t, double T, const FehWeight& zw) {
  const LogTWeight tw = logT_weight(t, std::log10(T));
  const double lg = table_bilinear(t.log_lambda_n, t, tw, zw) +
                    table_bilinear(t.log_ne, t, tw, zw) + table_bilinear(t.log_nt, t, tw, zw);
  return std::pow(10.0, lg);
}

// Koyama & Inutsuka (2002) cooling Lambda/n_H^2 [erg cm^3 s^-1] (T < 1e4 K).
MPSPH_HD double ki02_lambda(double T) {
  return kGammaKI02 *
         (1e7 * std::exp(-1.184e5 / (T + 1000.0)) + 1.4e-2 * std::sqrt(T) * std::exp(-92.0 / T));
}

// ------------------------------------------------------------------------ one particle

// What stays fixed for a particle during its step.
struct CoolingGas {
  double n_H;           // cm^-3
  double rate_to_dudt;  // code du/dt per erg cm^-3 s^-1 (dudt_per_rate / rho)
  FehWeight z;
};

MPSPH_HD CoolingGas cooling_gas(const CoolingKernelParams& p, double rho, double x_h, double z_fe) {
  double xh = p.x_h_default, feh = p.feh_default;
  if (p.particle_metals && x_h > 0.0) {
    xh = x_h;
    feh = feh_from_mass_fractions(x_h, z_fe);
  }
  CoolingGas g;
  g.n_H = xh * p.nH_per_rho * rho;
  g.rate_to_dudt = rho > 0.0 ? p.dudt_per_rate / rho : 0.0;
  g.z = feh_weight(p.table, feh);
  return g;
}

// Lambda(T)/n_H^2 [erg cm^3 s^-1]: SD93 at and above 1e4 K, KI02 below.
MPSPH_HD double cooling_lambda(const CoolingKernelParams& p, const FehWeight& z, double T) {
  return T >= kCoolingTableTmin ? sd93_lambda_nH2(p.table, T, z) : ki02_lambda(T);
}

// du/dt from radiation (heating - cooling) [code], at specific energy u.
MPSPH_HD double radiative_dudt(const CoolingKernelParams& p, const CoolingGas& g, double u) {
  const double T = temperature_from_u(p.mu, p.u_to_T, u);
  const double L = g.n_H * (p.heating - g.n_H * cooling_lambda(p, g.z, T));
  return L * g.rate_to_dudt;
}

// Cooling time u/|du/dt_rad| (infinite without radiative change), for the time-step criterion.
MPSPH_HD double cooling_time(double u, double dudt_rad) {
  return dudt_rad != 0.0 ? u / std::fabs(dudt_rad) : HUGE_VAL;
}

// Residual of the backward-Euler equation at x: x - u_s - h (a + du/dt_rad(x)).
MPSPH_HD double backward_euler_residual(const CoolingKernelParams& p, const CoolingGas& g, double a,
                                        double u_s, double h, double x) {
  return x - u_s - h * (a + radiative_dudt(p, g, x));
}

// Backward Euler over h from (u_s, r_s = du/dt_rad(u_s)): the root of
//   G(u) = u - u_s - h (a + du/dt_rad(u)),  u >= u_floor,
// nearest to u_s on the side the net rate d = a + r_s points to: the solution that tends to u_s
// as h -> 0. (G can have three roots where Lambda falls with T, above the SD93 peak and with
// hydro heating: a bracket over the whole range would find any of them.) The explicit value
// x0 = u_s + h d is tried first; if the root lies beyond it, the bracket is found by marching
// away from u_s in doubling steps to the first sign change of G (to u_floor when cooling, a root
// below it returning u_floor; to u_s + h (a + heating-only rate) when heating, since cooling only
// lowers the rate). Then false position with the Illinois modification, falling back to
// bisection when two iterations fail to halve the bracket (the rate jumps at 1e4 K).
MPSPH_HD double backward_euler_step(const CoolingKernelParams& p, const CoolingGas& g, double a,
                                    double u_s, double r_s, double h) {
  const double d = a + r_s;
  if (d == 0.0 || h <= 0.0) return u_s;
  if (d < 0.0 && u_s <= p.u_floor) return p.u_floor;
  double lo, hi, g_lo, g_hi;
  const double x0 = d < 0.0 ? std::fmax(u_s + h * d, p.u_floor) : u_s + h * d;
  const double g0 = backward_euler_residual(p, g, a, u_s, h, x0);
  if (g0 == 0.0) return x0;
  // First march step: the explicit change, at least a relative 1e-12 (so that it is not lost
  // below the last bit of u_s).
  double step = std::fmax(std::fabs(x0 - u_s), 1e-12 * u_s);
  if (d < 0.0) {
    if (g0 < 0.0) {
      lo = x0, g_lo = g0, hi = u_s, g_hi = -h * d;
    } else {
      if (x0 == p.u_floor) return p.u_floor;
      hi = x0, g_hi = g0;
      for (;;) {
        lo = std::fmax(hi - step, p.u_floor);
        g_lo = backward_euler_residual(p, g, a, u_s, h, lo);
        if (g_lo == 0.0) return lo;
        if (g_lo < 0.0) break;
        if (lo == p.u_floor) return p.u_floor;
        hi = lo, g_hi = g_lo;
        step *= 2.0;
      }
    }
  } else {
    if (g0 > 0.0) {
      lo = u_s, g_lo = -h * d, hi = x0, g_hi = g0;
    } else {
      const double u_max = u_s + h * (a + p.heating * g.n_H * g.rate_to_dudt);
      lo = x0, g_lo = g0;
      for (;;) {
        hi = std::fmin(lo + step, u_max);
        if (!(hi > lo)) return lo;
        g_hi = backward_euler_residual(p, g, a, u_s, h, hi);
        if (g_hi == 0.0) return hi;
        if (g_hi > 0.0) break;
        if (hi == u_max) return u_max;
        lo = hi, g_lo = g_hi;
        step *= 2.0;
      }
    }
  }
  int side = 0;  // which end the last iteration moved: -1 lo, +1 hi
  double width_before = hi - lo;
  bool bisect = false;
  for (int k = 0; k < 200 && hi - lo > 1e-13 * hi; ++k) {
    double x = bisect ? 0.5 * (lo + hi) : (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    const double gx = backward_euler_residual(p, g, a, u_s, h, x);
    if (std::fabs(gx) <= 1e-13 * x) return x;
    if (gx < 0.0) {
      lo = x, g_lo = gx;
      if (side == -1) g_hi *= 0.5;
      side = -1;
    } else {
      hi = x, g_hi = gx;
      if (side == +1) g_lo *= 0.5;
      side = +1;
    }
    if (k % 2 == 1) {
      bisect = hi - lo > 0.5 * width_before;
      width_before = hi - lo;
    }
  }
  return 0.5 * (lo + hi);
}

// Largest relative change of u in one error-controlled substep.
constexpr double kMaxSubstepChange = 0.1;

struct CoolingSolution {
  double u;
  int substeps;  // attempted substeps (work measure)
};

// u after dt of du/dt = a + du/dt_rad(u) from u0, never below u_floor (see the header comment).
MPSPH_HD CoolingSolution integrate_cooling(const CoolingKernelParams& p, const CoolingGas& g,
                                           double u0, double a, double dt) {
  double u = u0 > p.u_floor ? u0 : p.u_floor;
  if (!(dt > 0.0)) return {u, 0};
  double r = radiative_dudt(p, g, u);
  const double f = std::fabs(a + r);
  // A step that changes u by less than tolerance/10 (most particles, most steps): one implicit
  // step. Its local error is below the change itself (stiff case) or its square (smooth case).
  if (dt * f <= 0.1 * p.tolerance * u)
    return {std::fmax(backward_euler_step(p, g, a, u, r, dt), p.u_floor), 1};
  // First trial: the local error of backward Euler is ~ (h/t_u)^2 with t_u = u/|du/dt|.
  double h = dt;
  if (f > 0.0 && u > 0.0) h = std::fmin(dt, std::sqrt(p.tolerance) * u / f);
  double t = 0.0;
  int n = 0;
  while (t < dt) {
    const bool last = h >= dt - t;
    if (last) h = dt - t;
    const double u1 = backward_euler_step(p, g, a, u, r, h);
    const double u_half = backward_euler_step(p, g, a, u, r, 0.5 * h);
    const double u2 = backward_euler_step(p, g, a, u_half, radiative_dudt(p, g, u_half), 0.5 * h);
    ++n;
    const double scale = std::fmax(std::fmax(u1, u2), p.u_floor);
    const double err = scale > 0.0 ? std::fabs(u2 - u1) / scale : 0.0;
    // The work bound ends the integration whatever the error test says, also after accepted
    // substeps (under an extreme hydro rate they advance t by little: h is held at 10% of
    // u / |du/dt|): the L-stable two half steps, then one implicit step over what is left.
    if (n >= p.max_substeps && !(last && err <= p.tolerance)) {
      const double rest = dt - t - h;
      u = u2;
      if (rest > 0.0) u = backward_euler_step(p, g, a, u, radiative_dudt(p, g, u), rest);
      u = std::fmax(u, p.u_floor);
      break;
    }
    if (err > p.tolerance) {
      h *= std::fmax(0.1, 0.9 * std::sqrt(p.tolerance / err));
      continue;
    }
    u = std::fmax(2.0 * u2 - u1, p.u_floor);
    t = last ? dt : t + h;
    r = radiative_dudt(p, g, u);
    h *= err > 0.0 ? std::fmin(4.0, 0.9 * std::sqrt(p.tolerance / err)) : 4.0;
    // At most a change of kMaxSubstepChange u per substep: then h |d(du/dt_rad)/du| <= 0.1 |b|
    // for a local power law Lambda ~ T^b, so the backward-Euler equation has one root. (Without
    // the bound, steps grown after a lucky error estimate met several roots above the SD93 peak,
    // and the choice between them flipped with the last bit of the arithmetic.)
    // (Not while the floor holds u: then nothing changes.)
    const double f_now = std::fabs(a + r);
    const bool held = u <= p.u_floor && a + r < 0.0;
    if (f_now > 0.0 && !held) h = std::fmin(h, kMaxSubstepChange * u / f_now);
  }
  return {u, n};
}

// ------------------------------------------------------------------------ the driver's hook

struct CoolingParticleIn {
  double u0;    // u at step start
  double a;     // hydro du/dt, (dudt0 + dudt)/2 (predictor-corrector)
  double rho;   // code density
  double x_h;   // hydrogen mass fraction (0 = not set)
  double z_fe;  // iron mass fraction
};

struct CoolingParticleOut {
  double u;           // new specific energy
  double dudt_rad;    // radiative du/dt at the new state (for the time-step criterion); at the
                      // floor with net cooling, -a (u is held there: no net change)
  float temperature;  // K
  int substeps;
};

// The corrector's energy update of one gas particle: u = u0 + dt a with radiation and the floor
// (cooling on), or the plain u0 + dt a (cooling.model none).
MPSPH_HD CoolingParticleOut cool_particle(const CoolingKernelParams& p, const CoolingParticleIn& in,
                                          double dt) {
  CoolingParticleOut out;
  if (!p.enabled) {
    out.u = in.u0 + dt * in.a;
    out.dudt_rad = 0.0;
    out.substeps = 0;
  } else {
    const CoolingGas g = cooling_gas(p, in.rho, in.x_h, in.z_fe);
    const CoolingSolution s = integrate_cooling(p, g, in.u0, in.a, dt);
    out.u = s.u;
    out.dudt_rad = radiative_dudt(p, g, s.u);
    // Held at the floor: the net radiative change is what cancels the hydro rate there.
    if (s.u <= p.u_floor && in.a + out.dudt_rad < 0.0) out.dudt_rad = -in.a;
    out.substeps = s.substeps;
  }
  out.temperature = float(temperature_from_u(p.mu, p.u_to_T, out.u));
  return out;
}

// The corrector hook for gas particle i of the store (CPU loop and CUDA kernel alike): u from
// u0 over dt with the mean hydro rate (dudt0 + dudt)/2 and radiation; sets u, dudt_cool and
// temperature. Returns the energy radiated, m (u0 + dt a - u_new) (< 0 when heating or the floor
// added energy); *substeps gets the work done.
MPSPH_HD double cool_stored_particle(const CoolingKernelParams& p, const ParticleView& s,
                                     std::size_t i, double dt, int* substeps) {
  const double a = 0.5 * (s.dudt0[i] + s.dudt[i]);
  const CoolingParticleOut out =
      cool_particle(p, {s.u0[i], a, double(s.rho[i]), s.x_h[i], s.z_fe[i]}, dt);
  s.u[i] = out.u;
  s.dudt_cool[i] = out.dudt_rad;
  s.temperature[i] = out.temperature;
  *substeps = out.substeps;
  return s.mass[i] * (s.u0[i] + dt * a - out.u);
}

}  // namespace mpsph
