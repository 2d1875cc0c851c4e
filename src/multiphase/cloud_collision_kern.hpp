// Discrete inelastic ("sticky") collisions of two cold clouds (PHYSICS.md section 5, scheme B;
// Theis & Hensler 1993, Harfst, Theis & Hensler 2006): the partner choice, the analytic outcome
// (coalescence or a bounce with restitution in the centre-of-mass frame) and its application to
// the store. Pure MPSPH_HD functions shared by the OpenMP driver (sticky_clouds.cpp) and the CUDA
// driver (sticky_clouds_gpu.cu).
//
// Units: code units throughout (masses M, lengths L, velocities V; energies M V^2). Every function
// is symmetric under i <-> j except where a comment says otherwise.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"
#include "timestep/integrator_kern.hpp"

namespace mpsph {

struct CloudCollisionParams {
  double pi_sigma;  // pi Sigma_cl [M / L^2]: R_cl = sqrt(m / (pi Sigma_cl))
  double G;         // gravitational constant [L V^2 / M]
  double beta_r;    // restitution of the normal component of v_ij in a bounce
  double beta_t;    // restitution of the tangential component
  double m_max;     // two clouds coalesce only when m_i + m_j < m_max [M]
  // Self-gravity of the run (gravity.enabled): a coalescence removes the pair's softened
  // potential energy -G m_i m_j g(r_ij) from E_potential, which the account books.
  bool self_gravity = false;
  SofteningKernel kernel = SofteningKernel::Plummer;
  double eps2 = 0.0;  // pair softening squared of two clouds (gravity.softening of type 2)
};

// Cloud radius R_cl = sqrt(m / (pi Sigma_cl)) [L].
MPSPH_HD double cloud_radius(double m, double pi_sigma) {
  return std::sqrt(m / pi_sigma);
}

// A possible partner: the clouds overlap (r_ij < R_i + R_j) and approach (x_ij . v_ij < 0), with
// x_ij = x_i - x_j (nearest image), v_ij = v_i - v_j. Symmetric.
MPSPH_HD bool clouds_collide(const Vec3d& x_ij, const Vec3d& v_ij, double r_sum) {
  return norm2(x_ij) < r_sum * r_sum && dot(x_ij, v_ij) < 0.0;
}

// Partner order: the nearest (smaller r^2) first, ties by the lower id. A total order on the
// candidates, so the choice does not depend on the order they are visited in (thread order).
MPSPH_HD bool closer_partner(double r2, uint64_t id, double best_r2, uint64_t best_id) {
  return r2 < best_r2 || (r2 == best_r2 && id < best_id);
}

// The two clouds of a collision as the outcome needs them.
struct CloudPair {
  double m_i, m_j;  // masses
  double r_i, r_j;  // radii
  Vec3d x_ij;       // x_i - x_j (nearest image)
  Vec3d v_i, v_j;   // velocities
};

struct CollisionOutcome {
  bool coalesce;    // true: one cloud of m_i + m_j moving with v_cm
  Vec3d v_i, v_j;   // velocities after the collision (both v_cm when coalescing)
  double radiated;  // energy taken out of the particles [M V^2]: the kinetic energy lost,
                    // 1/2 mu (|v_ij|^2 - |v_ij'|^2) (mu the reduced mass), and with self-gravity
                    // a coalescence's pair potential energy (below)
};

// Coalescence when |v_ij| < sqrt(2 G (m_i + m_j) / (R_i + R_j)) and m_i + m_j < m_max, radiating
// the kinetic energy of the relative motion, 1/2 mu v_ij^2. With self-gravity the merged cloud
// also takes the pair's potential energy -G m_i m_j g(r_ij) (g the softened 1/r of the gravity
// solver) out of E_potential: the pair's orbital energy 1/2 mu v_ij^2 - G m_i m_j g(r_ij) (< 0
// for clouds bound to each other) is what the particles lose, and the account books it (the term
// is small in the galaxy runs: docs/multiphase.md). Otherwise a bounce in the
// centre-of-mass frame: with n = x_ij/|x_ij|, the relative velocity's normal part is reversed and
// scaled by beta_r, its tangential part scaled by beta_t,
//   v_ij' = -beta_r (v_ij . n) n + beta_t (v_ij - (v_ij . n) n),
// v_i' = v_cm + m_j/M v_ij', v_j' = v_cm - m_i/M v_ij' (momentum conserved), radiating
// 1/2 mu ((1 - beta_r^2) (v_ij . n)^2 + (1 - beta_t^2) |v_ij,t|^2).
MPSPH_HD CollisionOutcome collide_clouds(const CloudCollisionParams& p, const CloudPair& c) {
  const double M = c.m_i + c.m_j;
  const double mu = c.m_i * c.m_j / M;
  const Vec3d v_cm = (1.0 / M) * (c.m_i * c.v_i + c.m_j * c.v_j);
  const Vec3d v_ij = c.v_i - c.v_j;
  const double v2 = norm2(v_ij);
  CollisionOutcome out;
  if (v2 < 2.0 * p.G * M / (c.r_i + c.r_j) && M < p.m_max) {
    out.coalesce = true;
    out.v_i = v_cm;
    out.v_j = v_cm;
    out.radiated = 0.5 * mu * v2;
    if (p.self_gravity)
      out.radiated -= p.G * c.m_i * c.m_j * softened_factors(norm2(c.x_ij), p.eps2, p.kernel).g;
    return out;
  }
  const Vec3d n = (1.0 / norm(c.x_ij)) * c.x_ij;
  const double vn = dot(v_ij, n);
  const Vec3d vt = v_ij - vn * n;
  const Vec3d v_after = (-p.beta_r * vn) * n + p.beta_t * vt;
  out.coalesce = false;
  out.v_i = v_cm + (c.m_j / M) * v_after;
  out.v_j = v_cm - (c.m_i / M) * v_after;
  out.radiated =
      0.5 * mu * ((1.0 - p.beta_r * p.beta_r) * vn * vn + (1.0 - p.beta_t * p.beta_t) * norm2(vt));
  return out;
}

// The pair (i, j) of the store as collide_clouds() reads it (x, v: the predicted state at the
// force evaluation).
MPSPH_HD CloudPair stored_cloud_pair(const ParticleView& s, std::size_t i, std::size_t j,
                                     const Box& box, double pi_sigma) {
  CloudPair c;
  c.m_i = s.mass[i];
  c.m_j = s.mass[j];
  c.r_i = cloud_radius(c.m_i, pi_sigma);
  c.r_j = cloud_radius(c.m_j, pi_sigma);
  c.x_ij = min_image(s.pos[i] - s.pos[j], box);
  c.v_i = s.vel[i];
  c.v_j = s.vel[j];
  return c;
}

// Mass-weighted mean (m_a a + m_b b) / (m_a + m_b).
template <class T>
MPSPH_HD T mass_mean(const T& a, const T& b, double m_a, double m_b, double M) {
  return (m_a * a + m_b * b) * (1.0 / M);
}

// Writes a collision of (sub)step `step` (StageArgs::step) into the store; dt_i, dt_j: the two
// clouds' current steps (both end now: only active clouds collide). The collision happens now, at
// the end of their steps, so the corrector (v1 = v0 + (a0 + a) dt/2, x1 = x0 + (v0 + v1) dt/2)
// must end them with the new velocity at the position they would have had without it:
//  - a bounce adds the velocity change dv to v and to the step's base v0 and takes dv dt from the
//    base position x0, so x1 is unchanged. (Without the x0 term the corrector moved both clouds
//    apart by dv dt at once: a jump out of their mutual potential well at every bounce, energy out
//    of nothing for large clouds on long steps.)
//  - a coalescence keeps the cloud with the lower id (not symmetric: `keep` survives, `gone` is
//    removed, run/particle_changes.hpp): mass and metal masses add; position and velocity become
//    the centre of mass; the accelerations (a0, a, a_grav) mass-weighted means; and keep's base
//    (x0, v0) is solved back over keep's step from the mass-weighted means of the two clouds'
//    corrected end states, so that the corrector ends the merged cloud exactly at the centre of
//    mass of the two corrected clouds with their total momentum - also when the two were on
//    different rungs (a mean of bases of different step starts put it elsewhere).
// The merged cloud records the event, coalescence_step = step + 1, for the stages that follow in
// the same step (star formation at coalescence reads it; a value of an earlier step means
// nothing, so it never needs clearing).
MPSPH_HD void apply_collision(const ParticleView& s, std::size_t i, std::size_t j,
                              const CollisionOutcome& out, const Box& box, int64_t step,
                              double dt_i, double dt_j) {
  if (!out.coalesce) {
    const Vec3d dv_i = out.v_i - s.vel[i];
    const Vec3d dv_j = out.v_j - s.vel[j];
    s.vel[i] = out.v_i;
    s.vel[j] = out.v_j;
    s.vel0[i] += dv_i;
    s.vel0[j] += dv_j;
    s.pos0[i] -= dt_i * dv_i;
    s.pos0[j] -= dt_j * dv_j;
    return;
  }
  const std::size_t keep = s.id[i] < s.id[j] ? i : j;
  const std::size_t gone = keep == i ? j : i;
  const double dt_k = keep == i ? dt_i : dt_j, dt_g = keep == i ? dt_j : dt_i;
  const double mk = s.mass[keep], mg = s.mass[gone], M = mk + mg;
  const double wg = mg / M;
  const KinematicState ek =
      correct_kinematics(s.pos0[keep], s.vel0[keep], s.acc0[keep], s.acc[keep], dt_k);
  const KinematicState eg =
      correct_kinematics(s.pos0[gone], s.vel0[gone], s.acc0[gone], s.acc[gone], dt_g);
  const Vec3d x1 = ek.pos + wg * min_image(eg.pos - ek.pos, box);
  const Vec3d v1 = mass_mean(ek.vel, eg.vel, mk, mg, M);
  s.pos[keep] = wrap_position(s.pos[keep] + wg * min_image(s.pos[gone] - s.pos[keep], box), box);
  s.vel[keep] = out.v_i;
  s.acc[keep] = mass_mean(s.acc[keep], s.acc[gone], mk, mg, M);
  s.acc0[keep] = mass_mean(s.acc0[keep], s.acc0[gone], mk, mg, M);
  s.vel0[keep] = v1 - (0.5 * dt_k) * (s.acc0[keep] + s.acc[keep]);
  s.pos0[keep] = x1 - (0.5 * dt_k) * (s.vel0[keep] + v1);
  s.acc_grav[keep] = mass_mean(s.acc_grav[keep], s.acc_grav[gone], mk, mg, M);
  s.z_fe[keep] = mass_mean(s.z_fe[keep], s.z_fe[gone], mk, mg, M);
  s.z_o[keep] = mass_mean(s.z_o[keep], s.z_o[gone], mk, mg, M);
  s.x_h[keep] = mass_mean(s.x_h[keep], s.x_h[gone], mk, mg, M);
  s.dt_limit[keep] = s.dt_limit[keep] < s.dt_limit[gone] ? s.dt_limit[keep] : s.dt_limit[gone];
  s.mass[keep] = M;
  s.mass[gone] = 0.0;
  s.type[gone] = kRemoved;
  s.coalescence_step[keep] = step + 1;
}

}  // namespace mpsph
