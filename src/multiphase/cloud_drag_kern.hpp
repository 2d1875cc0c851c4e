// Drag of the hot gas on a cold cloud (PHYSICS.md section 5):
//   F = -1/2 C_D pi R_cl^2 rho_h |v_rel| v_rel,   v_rel = v_cl - v_h,
// rho_h and v_h the kernel-interpolated gas density and velocity at the cloud. Over a step dt the
// cloud's velocity change is the exact solution of dv/dt = -a |v| v (a = 1/2 C_D pi R^2 rho_h / m)
// in a fixed background,
//   Delta v = -v_rel x / (1 + x),  x = a |v_rel| dt,
// which is F dt / m to first order in x and never reverses v_rel however long the step (an
// explicit F dt does for x > 2). The gas receives the opposite impulse (cloud_gas_exchange_kern).
// The background is not fixed, though: receiver j takes the share w_j of the impulse on its own
// mass, like a body of mass M_j = m_j / w_j. When the cloud is much heavier than that (a 2e9 Msun
// cloud among gas particles of 2e3 Msun at the centre of a merger remnant), the fixed-background
// impulse carried the receiver far past the cloud - kinetic energy out of nothing (E_drag -8e9
// against |E_total| 3e6) - so the impulse is capped at the inelastic two-body limit of the most
// sensitive receiver, m |Delta v| <= mu |v_rel|, mu = m M / (m + M), M = min_j M_j: no receiver
// ends beyond the common velocity. The cap is inactive while x / (1 + x) <= M / (m + M), i.e.
// for clouds not much heavier than their gas.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// The drag force on a cloud of radius R [L] in gas of density rho_h [M/L^3]; code units.
MPSPH_HD Vec3d drag_force(double c_d, double R, double rho_h, const Vec3d& v_rel) {
  return (-0.5 * c_d * 3.14159265358979323846 * R * R * rho_h * norm(v_rel)) * v_rel;
}

// The cloud's velocity change over dt (see the header) [V]; M: the smallest receiver inertia
// (<= 0: a fixed background, no cap).
MPSPH_HD Vec3d drag_velocity_change(double c_d, double R, double rho_h, double m,
                                    const Vec3d& v_rel, double dt, double M) {
  const double x = 0.5 * c_d * 3.14159265358979323846 * R * R * rho_h * norm(v_rel) * dt / m;
  if (!(x > 0.0)) return Vec3d{0, 0, 0};
  double f = x / (1.0 + x);
  if (M > 0.0 && f > M / (m + M)) f = M / (m + M);
  return (-f) * v_rel;
}

}  // namespace mpsph
