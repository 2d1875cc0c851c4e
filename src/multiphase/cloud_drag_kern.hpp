// Drag of the hot gas on a cold cloud (PHYSICS.md section 5):
//   F = -1/2 C_D pi R_cl^2 rho_h |v_rel| v_rel,   v_rel = v_cl - v_h,
// rho_h and v_h the kernel-interpolated gas density and velocity at the cloud. Over a step dt the
// cloud's velocity change is the exact solution of dv/dt = -a |v| v (a = 1/2 C_D pi R^2 rho_h / m)
// in a fixed background,
//   Delta v = -v_rel x / (1 + x),  x = a |v_rel| dt,
// which is F dt / m to first order in x and never reverses v_rel however long the step (an
// explicit F dt does for x > 2). The gas receives the opposite impulse (cloud_gas_exchange_kern).
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// The drag force on a cloud of radius R [L] in gas of density rho_h [M/L^3]; code units.
MPSPH_HD Vec3d drag_force(double c_d, double R, double rho_h, const Vec3d& v_rel) {
  return (-0.5 * c_d * 3.14159265358979323846 * R * R * rho_h * norm(v_rel)) * v_rel;
}

// The cloud's velocity change over dt (see the header) [V]. Symmetric in nothing: one cloud.
MPSPH_HD Vec3d drag_velocity_change(double c_d, double R, double rho_h, double m,
                                    const Vec3d& v_rel, double dt) {
  const double x = 0.5 * c_d * 3.14159265358979323846 * R * R * rho_h * norm(v_rel) * dt / m;
  if (!(x > 0.0)) return Vec3d{0, 0, 0};
  return (-x / (1.0 + x)) * v_rel;
}

}  // namespace mpsph
