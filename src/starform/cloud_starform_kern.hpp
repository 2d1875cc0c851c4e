// Star formation from cold clouds (PHYSICS.md section 6), models `clouds` and `probabilistic`, per
// cloud (type 2) at the end of its step. A cloud of mass m has the radius of the cold phase,
// R = sqrt(m / (pi Sigma_cl)) (multiphase/cloud_collision_kern.hpp), so its mean density is
//   rho_cl = 3 m / (4 pi R^3)
// and its free-fall time t_ff = sqrt(3 pi / (32 G rho_cl)). Its Jeans mass, with the isothermal
// sound speed c of its gas (starform.cloud_T_K, cloud_mu), is that of a sphere of diameter the
// Jeans length (Binney & Tremaine 2008, eq. 5.165 with lambda_J = sqrt(pi c^2 / (G rho))):
//   M_J = (pi^(5/2) / 6) c^3 / sqrt(G^3 rho_cl).
// Since rho_cl ~ m^(-1/2) at fixed Sigma_cl, M_J ~ m^(1/4): a cloud is Jeans unstable above
//   m_J = (pi^(5/2)/6)^(4/3) (4 / (3 sqrt(pi)))^(2/3) c^4 / (G^2 Sigma_cl) = 3.44 c^4/(G^2
//   Sigma_cl)
// (cloud_jeans_threshold(), a closed form the tests check the criterion against), so clouds become
// unstable by growing: by coalescence.
//
// The coalescence itself is an event of the cold phase's collision stage (multiphase/,
// cloud_collision_kern.hpp apply_collision), which runs before star formation in the same step:
// the merged cloud, already at the pair's centre of mass with its velocity and mass-weighted
// metals, carries coalescence_step = 1 + the index of that step (a field of the store, so neither
// module includes the other). Star formation reads it on the clouds of its own step.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"
#include "starform/star_birth_kern.hpp"

namespace mpsph {

constexpr double kStarformPi = 3.14159265358979323846;

struct CloudStarformParams {
  bool jeans;  // true: clouds (Jeans criterion, spawn eps of the mass); false: probabilistic
  bool at_coalescence;  // clouds: the star forms at the coalescence that made the cloud (trigger
                        // coalescence), not on a free-fall clock (free_fall)
  double eps;           // clouds: eps_SF, the fraction of the cloud that becomes the star;
                        // probabilistic: eps_ff, the efficiency per free-fall time
  double pi_sigma;      // pi Sigma_cl [code mass / code length^2]
  double G;             // [code]
  double c_cloud;       // isothermal sound speed of the clouds' gas [code velocity] (clouds)
};

MPSPH_HD double cloud_mean_density(double m, double pi_sigma) {
  const double R = std::sqrt(m / pi_sigma);
  return 3.0 * m / (4.0 * kStarformPi * R * R * R);
}

MPSPH_HD double free_fall_time(double rho, double G) {
  return std::sqrt(3.0 * kStarformPi / (32.0 * G * rho));
}

MPSPH_HD double jeans_mass(double c, double rho, double G) {
  return std::pow(kStarformPi, 2.5) / 6.0 * c * c * c / std::sqrt(G * G * G * rho);
}

// The mass above which a cloud of surface density pi_sigma / pi is Jeans unstable (header).
MPSPH_HD double cloud_jeans_threshold(double c, double pi_sigma, double G) {
  const double sigma = pi_sigma / kStarformPi;
  return std::pow(std::pow(kStarformPi, 2.5) / 6.0, 4.0 / 3.0) *
         std::pow(4.0 / (3.0 * std::sqrt(kStarformPi)), 2.0 / 3.0) * c * c * c * c /
         (G * G * sigma);
}

// Cloud i at the end of its step of length dt, in (sub)step `step` at time `time`. Returns the
// stellar mass it formed [code mass] (0 if none).
//   clouds, trigger coalescence (PHYSICS.md section 6 as written): when a coalescence of this
//     step made the cloud (coalescence_step = step + 1) and its mass m = m_1 + m_2 exceeds its
//     Jeans mass M_J(m), it forms one star of eps_SF m, deterministically (no random draw): at
//     the pair's centre of mass, with the pair's centre-of-mass velocity and the merged metals,
//     which the merged cloud carries. A cloud that stays unstable forms no further star until it
//     coalesces again.
//   clouds, trigger free_fall: when m > M_J(m), the cloud forms one star of eps_SF m with
//     probability 1 - exp(-dt / t_ff): one star per free-fall time on average, so the rate,
//     eps_SF m / t_ff, does not depend on the step (a star every step would make it ~ 1/dt).
//   In both the star is a child (request_star): the cloud keeps (1 - eps_SF) m.
//   probabilistic: the whole cloud becomes a star with probability 1 - exp(-eps_ff dt / t_ff),
//     the expected rate eps_ff m / t_ff of every cloud (turn_into_star).
// A cloud that already asks for a child (none other does now) is left alone this step.
MPSPH_HD double cloud_form_star(const CloudStarformParams& p, const ParticleView& s, std::size_t i,
                                double dt, long step, double time) {
  if (s.type[i] != kCloud || s.spawn_mass[i] > 0.0 || !(s.mass[i] > 0.0)) return 0.0;
  const double m = s.mass[i];
  const double rho = cloud_mean_density(m, p.pi_sigma);
  const double t_ff = free_fall_time(rho, p.G);
  if (p.jeans) {
    if (p.at_coalescence && s.coalescence_step[i] != int64_t(step) + 1) return 0.0;
    if (!(m > jeans_mass(p.c_cloud, rho, p.G))) return 0.0;
    if (!p.at_coalescence && !star_formation_draw(s, i, step, event_probability(dt / t_ff)))
      return 0.0;
    const double m_star = p.eps * m;
    request_star(s, i, m_star);
    return m_star;
  }
  if (!star_formation_draw(s, i, step, event_probability(p.eps * dt / t_ff))) return 0.0;
  turn_into_star(s, i, time, 0.0);
  return m;
}

}  // namespace mpsph
