// Pure gravity physics shared by the OpenMP and CUDA drivers (PHYSICS.md section 2): softened pair
// interaction, multipole (monopole + quadrupole) node interaction, and the node-opening criteria.
//
// Conventions. Everything here is per unit G: callers multiply accelerations and potentials by G
// once at the end. dx is always x_target - x_source (target minus particle or node centre of mass),
// made relative in double by the caller and then rounded to float. The potential excludes the
// self-interaction. A kernel returns "factors" (g, g1) such that the potential of a source of mass
// m is phi = -m g and its acceleration a = -m g1 dx; g1 * dx is exactly antisymmetric under
// exchange of the pair (dx -> -dx, same r^2), which lets the direct sum conserve momentum to
// round-off.
//
// Softening. Each particle carries a Plummer-equivalent softening eps (per type). The pair
// softening is the quadratic mean eps_ij^2 = (eps_i^2 + eps_j^2)/2: symmetric (Newton's third law
// holds for every pair), equal to eps for like particles, and linear in eps_j^2, so a node's
// mass-weighted mean of eps^2 reproduces the Plummer monopole of a node of mixed types to second
// order in the spread of eps^2 (max(eps_i, eps_j) would make that error first order).
//   Plummer (seed):  phi = -m / sqrt(r^2 + eps^2),  a = -m dx / (r^2 + eps^2)^(3/2).
//   Spline:          potential of the M4 cubic-spline mass distribution with support
//                    h = 2.8 eps (the GADGET convention: phi(0) = -m/eps as for Plummer), exactly
//                    Newtonian for r >= h (Hernquist & Katz 1989, ApJS 70, 419, eqs. A1-A2;
//                    Springel 2005, MNRAS 364, 1105, sec. 2.1 and GADGET-2's forcetree.c form).
#pragma once

#include <cmath>

#include "core/annotation.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_params.hpp"

namespace mpsph {

// Spline support radius in units of the Plummer-equivalent softening (GADGET: h = 2.8 eps).
constexpr double kSplineSupportPerEps = 2.8;

template <class T>
struct GravFactors {
  T g;   // potential factor: phi = -m g      (1/r when Newtonian)
  T g1;  // force factor:     a   = -m g1 dx  (1/r^3 when Newtonian)
};

// Pair softening length squared (quadratic mean, see the header comment).
template <class T>
MPSPH_HD T pair_eps2(T eps_i, T eps_j) {
  return T(0.5) * (eps_i * eps_i + eps_j * eps_j);
}

template <class T>
MPSPH_HD GravFactors<T> plummer_factors(T r2, T eps2) {
  const T inv_s = T(1) / std::sqrt(r2 + eps2);
  return {inv_s, inv_s * inv_s * inv_s};
}

// Spline-softened factors for support radius h = 2.8 eps (eps2 = eps^2). Within h the
// polynomials are the enclosed-mass force m(<r)/r^3 and potential of the M4 kernel
// W(r,h) = 8/(pi h^3) {1 - 6u^2 + 6u^3 (u < 1/2); 2(1-u)^3 (1/2 <= u < 1)}, u = r/h.
template <class T>
MPSPH_HD GravFactors<T> spline_factors(T r2, T eps2) {
  const T h2 = T(kSplineSupportPerEps) * T(kSplineSupportPerEps) * eps2;
  if (r2 >= h2) {
    const T inv_r = T(1) / std::sqrt(r2);
    return {inv_r, inv_r * inv_r * inv_r};
  }
  const T h = std::sqrt(h2);
  const T inv_h = T(1) / h;
  const T u = std::sqrt(r2) * inv_h;
  const T u2 = u * u;
  const T inv_h3 = inv_h * inv_h * inv_h;
  GravFactors<T> f;
  if (u < T(0.5)) {
    f.g1 = inv_h3 * (T(32) / T(3) + u2 * (T(32) * u - T(38.4)));
    f.g = -inv_h * (T(-2.8) + u2 * (T(16) / T(3) + u2 * (T(6.4) * u - T(9.6))));
  } else {
    // Enclosed mass fraction 1 - w^4 (16 - 25.6 w + 32/3 w^2), w = 1 - u: the same polynomial as
    // GADGET-2's force expression times u^3, written without its cancellation near u = 1 (which
    // costs float ~1e-5 of the force there).
    const T w = T(1) - u;
    const T w2 = w * w;
    const T m_in = T(1) - w2 * w2 * (T(16) - T(25.6) * w + T(32) / T(3) * w2);
    f.g1 = m_in * inv_h3 / (u2 * u);
    f.g = -inv_h * (T(-3.2) + T(1) / (T(15) * u) +
                    u2 * (T(32) / T(3) + u * (T(-16) + u * (T(9.6) - T(32) / T(15) * u))));
  }
  return f;
}

template <class T>
MPSPH_HD GravFactors<T> softened_factors(T r2, T eps2, SofteningKernel kernel) {
  return kernel == SofteningKernel::Spline ? spline_factors(r2, eps2) : plummer_factors(r2, eps2);
}

// The same with the kernel fixed at compile time (inner loops of the drivers).
template <SofteningKernel K, class T>
MPSPH_HD GravFactors<T> softened_factors(T r2, T eps2) {
  if constexpr (K == SofteningKernel::Spline) {
    return spline_factors(r2, eps2);
  } else {
    return plummer_factors(r2, eps2);
  }
}

// Result of one interaction, per unit G.
template <class T>
struct GravAccPot {
  Vec3<T> acc;
  T pot;
};

// Particle j (mass m_j) acting on target i; dx = x_i - x_j (i != j).
template <class T>
MPSPH_HD GravAccPot<T> pair_interaction(Vec3<T> dx, T m_j, T eps2_ij, SofteningKernel kernel) {
  const GravFactors<T> f = softened_factors(norm2(dx), eps2_ij, kernel);
  return {(-m_j * f.g1) * dx, -m_j * f.g};
}

// The same with the kernel fixed at compile time.
template <class T, SofteningKernel K>
MPSPH_HD GravAccPot<T> pair_interaction(Vec3<T> dx, T m_j, T eps2_ij) {
  const GravFactors<T> f = softened_factors<K>(norm2(dx), eps2_ij);
  return {(-m_j * f.g1) * dx, -m_j * f.g};
}

// Multipole moments of a node about its centre of mass, d = x_j - com:
//   mass  M = sum m_j,
//   q..   traceless quadrupole Q_ab = sum m_j (3 d_a d_b - d^2 delta_ab),
//   trace sum m_j d^2 (drops out of Newtonian gravity; the Plummer-softened expansion needs it).
// Named scalars rather than an array, so that a vectorised loop keeps them in registers.
struct Multipole {
  float mass;
  float qxx, qxy, qxz, qyy, qyz, qzz;
  float trace;
};

MPSPH_HD Vec3f quad_times(Multipole m, Vec3f x) {
  return {m.qxx * x.x + m.qxy * x.y + m.qxz * x.z, m.qxy * x.x + m.qyy * x.y + m.qyz * x.z,
          m.qxz * x.x + m.qyz * x.y + m.qzz * x.z};
}

// Node acting on a target at dx = x_target - com: second-order Taylor expansion of the sum of
// softened point-mass potentials, phi = -sum m_j g(|dx - d_j|), about the centre of mass (the
// dipole vanishes). For a radial g with g1 = -g'/r, g2 = -g1'/r, g3 = -g2'/r:
//   phi = -[M g + g2/6 (x.Q.x) + trace/6 (g2 r^2 - 3 g1)]
//   a   = -[(M g1 + g3/6 (x.Q.x) + trace (g3 r^2 - 5 g2)/6) x - g2/3 Q.x]
// Newtonian (g = 1/r): the trace terms vanish and this is the usual quadrupole expansion.
// Plummer (g = 1/s, s^2 = r^2 + eps^2): g1 = s^-3, g2 = 3 s^-5, g3 = 15 s^-7, and the trace terms
// become -eps^2 g2 trace/6 and -eps^2 g3 trace/6: the expansion is exact to second order in d/s at
// any distance, including inside the softening length.
// Spline kernel: the tree accepts a node only when all of its particles lie beyond the pair
// support radius (see node_accepted), where the spline force is exactly Newtonian; pass eps2 = 0.
MPSPH_HD GravAccPot<float> node_interaction(Vec3f dx, Multipole mp, float eps2) {
  const float r2 = norm2(dx);
  const float inv_s2 = 1.0f / (r2 + eps2);
  const float inv_s = std::sqrt(inv_s2);
  const float g = inv_s;
  const float g1 = inv_s * inv_s2;
  const float g2 = 3.0f * g1 * inv_s2;
  const float g3 = 5.0f * g2 * inv_s2;
  const Vec3f qx = quad_times(mp, dx);
  const float xqx = dot(dx, qx);
  const float corr = xqx - eps2 * mp.trace;  // x.Q.x minus the softening trace term
  GravAccPot<float> r;
  r.pot = -(mp.mass * g + g2 * (1.0f / 6.0f) * corr);
  const float radial = mp.mass * g1 + g3 * (1.0f / 6.0f) * corr;
  r.acc = (-radial) * dx + (g2 * (1.0f / 3.0f)) * qx;
  return r;
}

// ------------------------------------------------------------------ opening criteria
// Geometry of a walk is relative to the centre c of the target group (a single particle is a group
// of size zero): the group is the box [-half, +half] around c. A node is described relative to c.
struct TargetGroup {
  Vec3f half;     // half-extent of the group's bounding box around its centre
  float eps_max;  // largest softening among the targets
  float acc_min;  // smallest |a_old|/G among the targets (relative criterion); 0 = unknown
};

struct NodeView {
  Vec3f com;         // node centre of mass relative to the group centre
  Vec3f box_centre;  // centre of the node's tight bounding box, relative to the group centre
  Vec3f box_half;    // half-extent of that box
  float size;        // l: the longest edge of the bounding box
  float mass;
  float eps_max;  // largest softening in the node
};

struct OpeningParams {
  OpeningCriterion criterion;
  SofteningKernel kernel;
  float theta;    // geometric: accept when l < theta d
  float rel_tol;  // relative: accept when M l^2 / d^4 <= rel_tol |a_old| / G (Springel 2005 eq. 18)
  // relative: also open every node with l >= theta_max d (GADGET-4's ErrTolThetaMax). The relative
  // test alone accepts a light but large node at d < l, where the expansion no longer converges.
  float theta_max;
};

// The walk's opening parameters from the run's gravity parameters (every tree solver).
inline OpeningParams opening_params(const GravityParams& p) {
  return {p.criterion, p.kernel, float(p.theta), float(p.rel_tol), float(p.theta_max)};
}

// The relative criterion opens nodes until M l^2 / d^4 <= rel_tol |a_old|, and a group's walk
// takes its smallest |a_old| for all its targets: one target with a tiny |a_old| (near a galaxy's
// centre the pulls cancel) makes the whole group open most of the tree, for every target, and one
// warp walks the group on a GPU (the disk galaxy at 2e7 particles per rank on 4 ranks: one group
// took 134-408 ms of a 150 ms walk, 2026-11-27). A target whose |a_old| is below 1/kAccOutlier of
// the largest in its group therefore walks alone, as a group of one with its own |a_old|, and the
// group takes the smallest |a_old| of the others: every target's nodes still meet the criterion
// with its own |a_old|, and the CPU and GPU walks split alike.
constexpr double kAccOutlier = 8.0;
// A group whose lists (accepted nodes and opened leaves' particles, its targets' own tree and the
// source trees together) pass this many entries walks again target by target: when all its
// targets have a tiny |a_old| (none far below the others) its walk would hold one warp for up to
// 447 ms (the disk galaxy, 4 ranks, 2026-11-27); alone, each target's lists are split over a
// warp's 32 lanes, and the GPU gives each target its own warp. Typical lists hold a few thousand.
constexpr long long kMaxGroupList = 65536;
MPSPH_HD bool acc_outlier(double a_old, double a_max) {
  return a_old * kAccOutlier < a_max;
}

// Squared distance from the origin-centred box [-half, half] to the point p.
MPSPH_HD float box_point_dist2(const Vec3f& half, const Vec3f& p) {
  const float dx = std::fmax(std::fabs(p.x) - half.x, 0.0f);
  const float dy = std::fmax(std::fabs(p.y) - half.y, 0.0f);
  const float dz = std::fmax(std::fabs(p.z) - half.z, 0.0f);
  return dx * dx + dy * dy + dz * dz;
}

// Fraction of the node size by which its bounding box is enlarged for the Barnes-Hut safety test
// (GADGET-2 opens a node whose 1.2 l cube contains the target: a margin of 0.1 l per side).
constexpr float kOpeningBoxMargin = 0.1f;

// True when the node's multipole may be used for every target of the group; false means: open it
// (or, for a leaf, interact with its particles). d is the distance from the node's centre of mass
// to the nearest point of the group box, so the test holds for each target in the group.
MPSPH_HD bool node_accepted(const TargetGroup& t, const NodeView& n, const OpeningParams& p) {
  // Barnes-Hut safety: never use the expansion for a node whose (slightly enlarged) bounding box
  // contains or touches the group, whatever the centre of mass says.
  const float m = kOpeningBoxMargin * n.size;
  const Vec3f sep = {std::fabs(n.box_centre.x) - t.half.x - n.box_half.x - m,
                     std::fabs(n.box_centre.y) - t.half.y - n.box_half.y - m,
                     std::fabs(n.box_centre.z) - t.half.z - n.box_half.z - m};
  if (sep.x < 0.0f && sep.y < 0.0f && sep.z < 0.0f) return false;

  const float d2 = box_point_dist2(t.half, n.com);
  const float l2 = n.size * n.size;
  bool ok;
  if (p.criterion == OpeningCriterion::Relative && t.acc_min > 0.0f) {
    ok = n.mass * l2 <= p.rel_tol * t.acc_min * d2 * d2 && l2 < p.theta_max * p.theta_max * d2;
  } else {
    ok = l2 < p.theta * p.theta * d2;
  }
  if (ok && p.kernel == SofteningKernel::Spline) {
    // Spline: the expansion is Newtonian, so every pair (i in group, j in node) must lie beyond its
    // support h_ij = 2.8 eps_ij; eps_ij is bounded by the two maxima.
    const float hx = std::fmax(std::fabs(n.box_centre.x) - t.half.x - n.box_half.x, 0.0f);
    const float hy = std::fmax(std::fabs(n.box_centre.y) - t.half.y - n.box_half.y, 0.0f);
    const float hz = std::fmax(std::fabs(n.box_centre.z) - t.half.z - n.box_half.z, 0.0f);
    const float h2 =
        float(kSplineSupportPerEps * kSplineSupportPerEps) * pair_eps2(t.eps_max, n.eps_max);
    ok = hx * hx + hy * hy + hz * hz >= h2;
  }
  return ok;
}

}  // namespace mpsph
