// Sink particles (PHYSICS.md section 8; Bate, Bonnell & Price 1995, MNRAS 277, 362, hereafter
// BBP95): the pure per-particle and per-pair functions shared by the OpenMP driver (sinks.cpp)
// and the CUDA driver (sinks_gpu.cu).
//
// Creation. A gas particle i becomes a sink (type 5, in place, keeping its mass, position and
// velocity; then it takes the gas within h_acc, see sinks.hpp) when every criterion holds (BBP95
// section 2.2.2); each has its bit in SinkCriterion:
//   density     rho_i > rho_sink
//   converging  div v_i <= 0
//   potential   pot_i <= pot_j for every gas particle j within h_acc of i (a local minimum)
//   bound       E_kin + E_th + E_grav < 0 for the group of i and the gas within h_acc of it
//   thermal     alpha = E_th / |E_grav| <= 1/2
//   rotation    alpha + beta = alpha + E_rot / |E_grav| <= 1
//   isolated    no sink within r_crit of i
// The group's energies are those of its members in the group's centre-of-mass frame (code
// energy), with r = x - x_cm and w = v - v_cm: E_kin = sum 1/2 m |w|^2, E_th = sum m u, E_grav =
// -G sum_{a<b} m_a m_b g(r_ab) with the gas softening of the gravity solver (g = 1/r far out),
// and the rotational energy in the per-axis form of Phantom (Price et al. 2018, PASA 35, e031,
// sink creation): E_rot = |(E_x, E_y, E_z)| with E_z = sum 1/2 m (r_x w_y - r_y w_x)^2 /
// (r_x^2 + r_y^2) and its cyclic permutations (the kinetic energy of rotation about each axis
// through the centre of mass). E_rot can exceed E_kin, so the rotation criterion is not implied by
// the bound one.
//
// Accretion. Gas particle j inside h_acc of sink s is accreted when (BBP95 section 2.2.3)
//   the pair is bound:   E_pair = 1/2 mu |w|^2 + m_j u_j - G m_s m_j / r < 0,
//                         mu = m_s m_j / (m_s + m_j), w = v_j - v_s, r = |x_j - x_s|,
//   it would not leave h_acc on its orbit: |d x w| < sqrt(G (m_s + m_j) h_acc) (specific angular
//                         momentum below that of a circular orbit at h_acc),
// and it goes to the sink with the lowest E_pair (ties: the lower sink id). merge_into_sink()
// then adds its mass and momentum to the sink, moves the sink to the pair's centre of mass, and
// keeps the pair's orbital angular momentum about that centre as the sink's spin, so that mass,
// linear momentum and angular momentum (sum m x cross v + spin) are conserved to round-off.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"

namespace mpsph {

// What the kernels need of the parameters (sink_params.hpp), in code units.
struct SinkKernParams {
  double rho_sink;  // resolved density threshold
  double h_acc;
  double r_crit;  // resolved (SinkParams::critical_radius())
  double G;
  double eps_gas;  // gravitational softening of gas (type 0)
  SofteningKernel kernel;
};

// One bit per creation criterion that FAILS (0: all hold).
enum SinkCriterion : uint32_t {
  kSinkDensity = 1u << 0,
  kSinkConverging = 1u << 1,
  kSinkPotential = 1u << 2,
  kSinkBound = 1u << 3,
  kSinkThermal = 1u << 4,
  kSinkRotation = 1u << 5,
  kSinkIsolated = 1u << 6,
};

// The criteria of particle i alone: density and converging flow.
MPSPH_HD uint32_t sink_local_criteria(const ParticleView& p, std::size_t i,
                                      const SinkKernParams& sp) {
  uint32_t fail = 0;
  if (!(double(p.rho[i]) > sp.rho_sink)) fail |= kSinkDensity;
  if (!(p.divv[i] <= 0.0f)) fail |= kSinkConverging;
  return fail;
}

struct GroupEnergies {
  double kinetic, thermal, grav, rot;  // code energy; grav <= 0
};

// The energies of the group members[0..k) (store indices, the candidate among them), in the
// group's centre-of-mass frame; positions relative to the candidate's nearest image.
MPSPH_HD GroupEnergies group_energies(const ParticleView& p, const uint32_t* members, int k,
                                      std::size_t centre, const Box& box,
                                      const SinkKernParams& sp) {
  double m_tot = 0.0;
  Vec3d mx{0, 0, 0}, mv{0, 0, 0};
  for (int a = 0; a < k; ++a) {
    const std::size_t j = members[a];
    const double m = p.mass[j];
    const Vec3d d = min_image(p.pos[j] - p.pos[centre], box);
    m_tot += m;
    mx += m * d;
    mv += m * p.vel[j];
  }
  const Vec3d x_cm = (1.0 / m_tot) * mx;
  const Vec3d v_cm = (1.0 / m_tot) * mv;
  GroupEnergies e{0, 0, 0, 0};
  double rx = 0.0, ry = 0.0, rz = 0.0;
  const double eps2 = sp.eps_gas * sp.eps_gas;
  for (int a = 0; a < k; ++a) {
    const std::size_t j = members[a];
    const double m = p.mass[j];
    const Vec3d r = min_image(p.pos[j] - p.pos[centre], box) - x_cm;
    const Vec3d w = p.vel[j] - v_cm;
    e.kinetic += 0.5 * m * norm2(w);
    e.thermal += m * p.u[j];
    const Vec3d l = cross(r, w);  // l.z = r_x w_y - r_y w_x, ...
    const double px = r.y * r.y + r.z * r.z, py = r.z * r.z + r.x * r.x, pz = r.x * r.x + r.y * r.y;
    if (px > 0.0) rx += 0.5 * m * l.x * l.x / px;
    if (py > 0.0) ry += 0.5 * m * l.y * l.y / py;
    if (pz > 0.0) rz += 0.5 * m * l.z * l.z / pz;
    for (int b = a + 1; b < k; ++b) {
      const std::size_t l = members[b];
      const Vec3d d = min_image(p.pos[j] - p.pos[l], box);
      const GravFactors<double> f = softened_factors(norm2(d), eps2, sp.kernel);
      e.grav -= sp.G * m * p.mass[l] * f.g;
    }
  }
  e.rot = std::sqrt(rx * rx + ry * ry + rz * rz);
  return e;
}

// The energy criteria of a group (bits kSinkBound, kSinkThermal, kSinkRotation).
MPSPH_HD uint32_t sink_energy_criteria(const GroupEnergies& e) {
  uint32_t fail = 0;
  if (!(e.kinetic + e.thermal + e.grav < 0.0)) fail |= kSinkBound;
  const double g = std::fabs(e.grav);
  const double alpha = g > 0.0 ? e.thermal / g : HUGE_VAL;
  const double beta = g > 0.0 ? e.rot / g : HUGE_VAL;
  if (!(alpha <= 0.5)) fail |= kSinkThermal;
  if (!(alpha + beta <= 1.0)) fail |= kSinkRotation;
  return fail;
}

// Whether particle j belongs to the group of i (sink candidate or new sink): gas within h_acc of i
// (h2 = h_acc^2), i itself when it is gas.
MPSPH_HD bool sink_group_member(const ParticleView& p, std::size_t i, std::size_t j, const Box& box,
                                double h2) {
  return p.type[j] == kGas && (j == i || norm2(min_image(p.pos[j] - p.pos[i], box)) < h2);
}

// Whether i has the lowest potential of its group members[0..k) (ties allowed).
MPSPH_HD bool sink_potential_minimum(const ParticleView& p, const uint32_t* members, int k,
                                     std::size_t i) {
  for (int a = 0; a < k; ++a)
    if (p.pot[members[a]] < p.pot[i]) return false;
  return true;
}

// Whether no sink of sinks[0..n) lies within r_crit of i.
MPSPH_HD bool sink_isolated(const ParticleView& p, std::size_t i, const uint32_t* sinks, int n,
                            const Box& box, double r_crit) {
  for (int q = 0; q < n; ++q)
    if (norm2(min_image(p.pos[sinks[q]] - p.pos[i], box)) < r_crit * r_crit) return false;
  return true;
}

// Every creation criterion of gas particle i with its group members[0..k) (the gas within h_acc,
// i among them, in store order) and the sinks sinks[0..n): the bits that fail (0: a sink forms).
MPSPH_HD uint32_t sink_creation_failures(const ParticleView& p, std::size_t i,
                                         const uint32_t* members, int k, const uint32_t* sinks,
                                         int n, const Box& box, const SinkKernParams& sp) {
  uint32_t fail = sink_local_criteria(p, i, sp);
  if (!sink_potential_minimum(p, members, k, i)) fail |= kSinkPotential;
  fail |= sink_energy_criteria(group_energies(p, members, k, i, box, sp));
  if (!sink_isolated(p, i, sinks, n, box, sp.r_crit)) fail |= kSinkIsolated;
  return fail;
}

// The verdict of the creation criteria that need the group, for a candidate that passed
// sink_local_criteria and sink_isolated: the potential minimum (O(k)) before the energies (O(k^2)),
// so that in a collapsing core, where every particle above rho_sink is a candidate, only the one
// at the bottom of the potential pays for the energies. True exactly when
// sink_creation_failures(...) == 0 (tests/sinks/sink_kern_test.cpp).
MPSPH_HD bool sink_group_forms(const ParticleView& p, std::size_t i, const uint32_t* members, int k,
                               const Box& box, const SinkKernParams& sp) {
  if (!sink_potential_minimum(p, members, k, i)) return false;
  return sink_energy_criteria(group_energies(p, members, k, i, box, sp)) == 0;
}

// Whether candidate a goes before candidate b when both would form a sink and they are too close
// for both: the lower potential first, ties by the lower id (any thread order gives the same).
MPSPH_HD bool sink_candidate_before(double pot_a, uint64_t id_a, double pot_b, uint64_t id_b) {
  return pot_a < pot_b || (pot_a == pot_b && id_a < id_b);
}

// Turns gas particle i into a sink in place at `time`: it keeps mass, position and velocity.
MPSPH_HD void make_sink(const ParticleView& p, std::size_t i, double time) {
  p.type[i] = kSink;
  p.spin[i] = Vec3d{0, 0, 0};
  p.accreted_mass[i] = 0.0;
  p.formation_time[i] = time;
}

// The two-body energy of gas j with sink s (code energy; < 0: bound), or +inf when j is outside
// h_acc or would leave it on its orbit (see the header comment).
MPSPH_HD double accretion_energy(const ParticleView& p, std::size_t s, std::size_t j,
                                 const Box& box, const SinkKernParams& sp) {
  const Vec3d d = min_image(p.pos[j] - p.pos[s], box);
  const double r2 = norm2(d);
  if (!(r2 < sp.h_acc * sp.h_acc)) return HUGE_VAL;
  const double ms = p.mass[s], mj = p.mass[j];
  const Vec3d w = p.vel[j] - p.vel[s];
  const double r = std::sqrt(r2);
  if (r > 0.0 && !(norm2(cross(d, w)) < sp.G * (ms + mj) * sp.h_acc)) return HUGE_VAL;
  const double mu = ms * mj / (ms + mj);
  const double e = 0.5 * mu * norm2(w) + mj * p.u[j] - (r > 0.0 ? sp.G * ms * mj / r : HUGE_VAL);
  return e < 0.0 ? e : HUGE_VAL;
}

// Whether sink (e_a, id_a) is preferred over (e_b, id_b) for the same gas particle.
MPSPH_HD bool sink_preferred(double e_a, uint64_t id_a, double e_b, uint64_t id_b) {
  return e_a < e_b || (e_a == e_b && id_a < id_b);
}

// Sink s swallows gas j, conserving mass, momentum and angular momentum (header comment). Both
// have just been corrected (their base is their current state), so the base follows. j is left
// with mass 0 and type kRemoved for the next order stage.
MPSPH_HD void merge_into_sink(const ParticleView& p, std::size_t s, std::size_t j, const Box& box) {
  const double ms = p.mass[s], mj = p.mass[j];
  const double m = ms + mj;
  const Vec3d xs = p.pos[s], vs = p.vel[s];
  const Vec3d xj = xs + min_image(p.pos[j] - xs, box);  // j's image next to the sink
  const Vec3d vj = p.vel[j];
  const Vec3d x = xs + (mj / m) * (xj - xs);
  const Vec3d v = (1.0 / m) * (ms * vs + mj * vj);
  // The orbital angular momentum the two had minus what the merged particle carries: the
  // reduced-mass term mu d x w, computed so that the budget closes with the rounded x and v.
  const Vec3d l_before = ms * cross(xs, vs) + mj * cross(xj, vj);
  p.spin[s] += l_before - m * cross(x, v);
  p.acc[s] = (1.0 / m) * (ms * p.acc[s] + mj * p.acc[j]);
  p.acc_grav[s] = (1.0 / m) * (ms * p.acc_grav[s] + mj * p.acc_grav[j]);
  p.pos[s] = wrap_position(x, box);
  p.vel[s] = v;
  p.mass[s] = m;
  p.accreted_mass[s] += mj;
  p.pos0[s] = p.pos[s];
  p.vel0[s] = v;
  p.acc0[s] = p.acc[s];
  p.mass[j] = 0.0;
  p.vel[j] = Vec3d{0, 0, 0};
  p.type[j] = kRemoved;
}

}  // namespace mpsph
