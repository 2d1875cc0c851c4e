// The seed predictor-corrector (PHYSICS.md section 3; Berczik 1999), per particle.
//
//   predictor:  v^p = v^n + a^n dt;     r^p = r^n + (v^n + v^p) dt/2;   u^p = u^n + udot^n dt
//   corrector:  v^{n+1} = v^n + (a^n + a^p) dt/2;   r^{n+1} = r^n + (v^n + v^{n+1}) dt/2
//               u^{n+1} = u^n + (udot^n + udot^p) dt/2
//
// One force evaluation per step, at the predicted state (so viscosity and du/dt see velocities
// at the force time); a^p becomes a^n of the next step.
//
// Positivity of u: an update may at most halve u (GADGET-2's limiter on the entropy update,
// Springel 2005), because the symmetric energy equation can cool a particle through its
// neighbours' pressure faster than its own u allows.
#pragma once

#include "core/annotation.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct KinematicState {
  Vec3d pos, vel;
};

MPSPH_HD KinematicState predict_kinematics(const Vec3d& pos, const Vec3d& vel, const Vec3d& acc,
                                           double dt) {
  const Vec3d vp = vel + dt * acc;
  return {pos + (0.5 * dt) * (vel + vp), vp};
}

MPSPH_HD KinematicState correct_kinematics(const Vec3d& pos0, const Vec3d& vel0, const Vec3d& acc0,
                                           const Vec3d& acc_p, double dt) {
  const Vec3d v1 = vel0 + (0.5 * dt) * (acc0 + acc_p);
  return {pos0 + (0.5 * dt) * (vel0 + v1), v1};
}

MPSPH_HD double limit_energy_drop(double u_new, double u_old) {
  return u_new < 0.5 * u_old ? 0.5 * u_old : u_new;
}

MPSPH_HD double predict_energy(double u, double dudt, double dt) {
  return limit_energy_drop(u + dt * dudt, u);
}

MPSPH_HD double correct_energy(double u0, double dudt0, double dudt_p, double dt) {
  return limit_energy_drop(u0 + 0.5 * dt * (dudt0 + dudt_p), u0);
}

}  // namespace mpsph
