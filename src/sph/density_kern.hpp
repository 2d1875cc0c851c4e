// Density loop of the seed SPH scheme (PHYSICS.md section 1), split as in SWIFT's hydro_iact.h /
// hydro.h: a self term, a pair function called for every neighbour j of i, and an end step.
//
//   rho_i    = sum_j m_j W_ij                       (self included), W_ij = W(r_ij, h_ij)
//   div v_i  = -1/rho_i sum_j m_j v_ij . grad_i W_ij   (Monaghan 1992, ARA&A 30, 543)
//   curl v_i =  1/rho_i sum_j m_j v_ij x grad_i W_ij   (same estimate for the curl)
// with h_ij = (h_i + h_j)/2, v_ij = v_i - v_j, grad_i W_ij = (1/r dW/dr) (x_i - x_j). Both
// estimates vanish for a uniform velocity and are exact for a linear field on a symmetric
// neighbourhood: div v = 3k for v = k x, |curl v| = 2 Omega for rigid rotation.
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/vec3.hpp"
#include "sph/kernel_kern.hpp"
#include "sph/pair_kern.hpp"

namespace mpsph {

// Running sums of the density loop for one particle i (float: ~N_B positive terms).
struct DensitySums {
  float rho = 0.f;                     // sum_j m_j W_ij                 [mass / length^3]
  float v_dot_gradw = 0.f;             // sum_j m_j v_ij . grad_i W_ij   [mass velocity / length^4]
  Vec3f v_cross_gradw{0.f, 0.f, 0.f};  // sum_j m_j v_ij x grad_i W_ij
};

// Self contribution m_i W(0, h_i) (no gradient term: grad W vanishes at r = 0).
MPSPH_HD void density_self(DensitySums& s, float m_i, float h_i) {
  s.rho += m_i * kernel_w(0.f, h_i);
}

// The kernel values of a pair at r^2 = r2 with h_ij = (h_i + h_j)/2: W_ij [1/length^3] and
// (1/r) dW/dr [1/length^5]. Symmetric in i <-> j.
struct DensityKernelTerms {
  float w;
  float dwdr_over_r;
};

MPSPH_HD DensityKernelTerms density_kernel_terms(float r2, float h_i, float h_j) {
  const float h_ij = 0.5f * (h_i + h_j);
  const float r = std::sqrt(r2);
  return {kernel_w(r, h_ij), kernel_dwdr_over_r(r, h_ij)};
}

// Adds the pair's terms (from density_kernel_terms(p.r2, h_i, h_j)) to the sums of i. Split from
// the kernel values so that a CPU loop can evaluate those for a whole list first (vectorised)
// and then add them in list order: the same operations as density_pair.
MPSPH_HD void density_pair_add(DensitySums& s, const PairSep& p, float m_j,
                               const DensityKernelTerms& k) {
  s.rho += m_j * k.w;
  const Vec3f gradw = k.dwdr_over_r * p.dx;
  s.v_dot_gradw += m_j * dot(p.dv, gradw);
  s.v_cross_gradw += m_j * cross(p.dv, gradw);
}

// Contribution of neighbour j != i to the sums of i.
// Symmetry: W_ij, v_ij . grad_i W_ij and v_ij x grad_i W_ij are symmetric in i <-> j (the last
// two are products of two antisymmetric factors); only the mass m_j is particle-specific, so the
// j-side call with (PairSep(j,i), m_i) gives the mirrored contribution.
MPSPH_HD void density_pair(DensitySums& s, const PairSep& p, float m_j, float h_i, float h_j) {
  density_pair_add(s, p, m_j, density_kernel_terms(p.r2, h_i, h_j));
}

struct DensityResult {
  float rho;    // [mass / length^3]
  float divv;   // [velocity / length]
  float curlv;  // |curl v| [velocity / length]
};

// End of the density loop (per particle).
MPSPH_HD DensityResult density_end(const DensitySums& s) {
  const float inv_rho = 1.f / s.rho;
  return {s.rho, -s.v_dot_gradw * inv_rho, norm(s.v_cross_gradw) * inv_rho};
}

}  // namespace mpsph
