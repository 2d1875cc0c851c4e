// Force loop of the seed SPH scheme (PHYSICS.md section 1), split as in SWIFT's hydro_iact.h /
// hydro.h: prepare (per particle) -> pair function -> end (per particle).
//
//   dv_i/dt = -sum_j m_j (P_i/rho_i^2 + P_j/rho_j^2 + PI~_ij) grad_i W_ij
//   du_i/dt = 1/2 sum_j m_j (P_i/rho_i^2 + P_j/rho_j^2 + PI~_ij) v_ij . grad_i W_ij   (seed)
//        or      sum_j m_j (P_i/rho_i^2 + PI~_ij/2) v_ij . grad_i W_ij   (sph.energy_equation:
//                                                                          own_pressure)
//   PI_ij   = (-alpha c_ij mu_ij + beta mu_ij^2) / rho_ij  if v_ij . r_ij < 0, else 0
//   mu_ij   = h_ij v_ij . r_ij / (r_ij^2 + eps h_ij^2)     (Monaghan & Gingold 1983)
//   PI~_ij  = (f_i + f_j)/2 PI_ij,  f_i = |div v|_i / (|div v|_i + |curl v|_i + eps' c_i/h_i)
//                                                           (Balsara 1995; Steinmetz 1996)
// c_ij, rho_ij, h_ij are arithmetic pair means. With Q_ij symmetric and grad_i W_ij = -grad_j W_ji
// the pair forces cancel (momentum) and sum_i m_i (v_i . dv_i/dt + du_i/dt) = 0 (energy), for
// either energy form (v_ij . grad_i W_ij is symmetric in i, j, so the P_i/rho_i^2 form sums to the
// symmetric one). They differ per particle: in the seed form a cold particle next to hot ones
// gets half of their P/rho^2 and can be driven below u = 0 in an expansion (the integrator's
// positivity limiter then adds energy); the own-pressure form, which is du_i/dt = (P_i/rho_i^2)
// d rho_i/dt of the SPH continuity equation, changes u in proportion to P_i.
//
// Exact antisymmetry in float: every i/j combination is formed with commutative operations only
// (a_i + a_j, 0.5f (x_i + x_j), products of two antisymmetric factors), so force_pair(j, i)
// returns bit for bit -acc and the same mu (and dudt in the seed form) as force_pair(i, j).
// Accumulating m_j * acc in double (ForceSums) then conserves total momentum to double round-off.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "sph/kernel_kern.hpp"
#include "sph/pair_kern.hpp"
#include "sph/sph_params.hpp"

namespace mpsph {

// Per-particle inputs of the force pair function (set by prepare_force).
struct ForceParticle {
  float h;         // [length]
  float rho;       // [mass / length^3]
  float pressure;  // [mass velocity^2 / length^3]
  float csound;    // [velocity]
  float balsara;   // f_i, dimensionless (1 when the switch is off)
};

struct PairForceParams {
  float alpha;               // linear (bulk) viscosity term
  float beta;                // quadratic (von Neumann-Richtmyer) term
  float eps;                 // eps in mu_ij: keeps mu finite as r_ij -> 0
  bool energy_own_pressure;  // du_i/dt from P_i/rho_i^2 alone (else the seed's symmetric form)
};

inline PairForceParams pair_force_params(const SphParams& p) {
  return {float(p.alpha), float(p.beta), float(p.eps_visc), p.energy_own_pressure};
}

MPSPH_HD ForceParticle force_particle(const ParticleView& v, std::size_t i) {
  return {v.h[i], v.rho[i], v.pressure[i], v.csound[i], v.balsara[i]};
}

// Balsara (1995) switch f_i in [0, 1]: ~1 in pure compression, ~0 in pure shear. 0 when the
// particle has no velocity gradient and no sound speed (then the viscosity has nothing to damp).
MPSPH_HD float balsara_factor(float divv, float curlv, float csound, float h, float eps_prime) {
  const float a = std::fabs(divv);
  const float denom = a + std::fabs(curlv) + eps_prime * csound / h;
  return denom > 0.f ? a / denom : 0.f;
}

// P/rho^2 [velocity^2 / (mass / length^3)], the per-particle part of Q_ij.
MPSPH_HD float pressure_over_rho2(const ForceParticle& p) {
  return p.pressure / (p.rho * p.rho);
}

// Result of one pair for particle i; multiply by m_j to accumulate.
struct ForcePair {
  Vec3f acc;   // dv_i/dt per unit m_j [velocity^2 / length / mass]; ANTIsymmetric: acc_ji = -acc_ij
  float dudt;  // du_i/dt per unit m_j [velocity^3 / length / mass]; symmetric (dudt_ji = dudt_ij)
               // in the seed form
  float mu;    // |mu_ij| of an approaching pair, else 0 [velocity]; symmetric
};

// Pair term of neighbour j != i (r_ij > 0) for particle i.
MPSPH_HD ForcePair force_pair(const PairSep& s, const ForceParticle& pi, const ForceParticle& pj,
                              const PairForceParams& vp) {
  const float h_ij = 0.5f * (pi.h + pj.h);
  const float r = std::sqrt(s.r2);
  const float vr = dot(s.dv, s.dx);  // v_ij . r_ij, symmetric
  float mu = 0.f;
  float visc = 0.f;  // PI~_ij [velocity^2 / (mass / length^3)]
  if (vr < 0.f) {
    mu = h_ij * vr / (s.r2 + vp.eps * h_ij * h_ij);
    const float c_ij = 0.5f * (pi.csound + pj.csound);
    const float rho_ij = 0.5f * (pi.rho + pj.rho);
    const float f_ij = 0.5f * (pi.balsara + pj.balsara);
    visc = f_ij * (-vp.alpha * c_ij * mu + vp.beta * mu * mu) / rho_ij;
  }
  const float q = (pressure_over_rho2(pi) + pressure_over_rho2(pj)) + visc;
  // g = Q_ij (1/r) dW/dr (r, h_ij), symmetric; grad_i W_ij = (1/r dW/dr) dx.
  const float dw = kernel_dwdr_over_r(r, h_ij);
  const float g = q * dw;
  const float dudt =
      vp.energy_own_pressure ? (pressure_over_rho2(pi) + 0.5f * visc) * dw * vr : 0.5f * g * vr;
  return {(-g) * s.dx, dudt, -mu};
}

// Running sums of the force loop for one particle, in double so that exactly antisymmetric float
// pair terms cancel to double round-off in the total momentum.
struct ForceSums {
  Vec3d acc{0.0, 0.0, 0.0};  // dv_i/dt [velocity^2 / length]
  double dudt = 0.0;         // du_i/dt [velocity^3 / length]
  float mu_max = 0.f;        // max_j |mu_ij| [velocity]
};

MPSPH_HD void force_accumulate(ForceSums& s, const ForcePair& p, double m_j) {
  s.acc += m_j * vec_cast<double>(p.acc);
  s.dudt += m_j * double(p.dudt);
  s.mu_max = p.mu > s.mu_max ? p.mu : s.mu_max;
}

// Viscous signal velocity of particle i for the time-step criterion dt = C h_i / vsig_i
// (Monaghan 1989, J. Comput. Phys. 82, 1): c_i + 1.2 (alpha c_i + beta max_j
// |mu_ij|) (PHYSICS.md section 3).
MPSPH_HD float signal_velocity(float csound, float mu_max, const PairForceParams& vp) {
  return csound + 1.2f * (vp.alpha * csound + vp.beta * mu_max);
}

}  // namespace mpsph
