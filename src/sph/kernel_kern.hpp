// M4 cubic spline kernel (Monaghan & Lattanzio 1985, eq. 21), support 2h, q = r/h
// (PHYSICS.md section 1):
//   W(r, h) = 1/(pi h^3) * { 1 - 1.5 q^2 + 0.75 q^3   (0 <= q < 1)
//                          { 0.25 (2 - q)^3           (1 <= q < 2)
//                          { 0                        (q >= 2)
// Templated on the floating type: pair loops use float, tests compare with double.
#pragma once

#include "core/annotation.hpp"

namespace mpsph {

template <class T>
MPSPH_HD T kernel_inv_pi() {
  return T(0.318309886183790671537767526745);  // 1/pi
}

// W(r, h) [1/length^3].
template <class T>
MPSPH_HD T kernel_w(T r, T h) {
  const T q = r / h;
  const T norm = kernel_inv_pi<T>() / (h * h * h);
  if (q < T(1)) return norm * (T(1) - T(1.5) * q * q + T(0.75) * q * q * q);
  if (q < T(2)) {
    const T t = T(2) - q;
    return norm * T(0.25) * t * t * t;
  }
  return T(0);
}

// dW/dr (r, h) [1/length^4]; continuous at q = 1 (both branches give -0.75/(pi h^4)).
template <class T>
MPSPH_HD T kernel_dwdr(T r, T h) {
  const T q = r / h;
  const T norm = kernel_inv_pi<T>() / (h * h * h * h);
  if (q < T(1)) return norm * q * (T(-3) + T(2.25) * q);
  if (q < T(2)) {
    const T t = T(2) - q;
    return norm * T(-0.75) * t * t;
  }
  return T(0);
}

// (1/r) dW/dr [1/length^5], finite at r = 0, so grad_i W_ij = kernel_dwdr_over_r * (x_i - x_j)
// needs no division by r.
template <class T>
MPSPH_HD T kernel_dwdr_over_r(T r, T h) {
  const T q = r / h;
  const T h2 = h * h;
  const T norm = kernel_inv_pi<T>() / (h2 * h2 * h);
  if (q < T(1)) return norm * (T(-3) + T(2.25) * q);
  if (q < T(2)) {
    const T t = T(2) - q;
    return norm * T(-0.75) * t * t / q;
  }
  return T(0);
}

}  // namespace mpsph
