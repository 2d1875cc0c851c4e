// Sink-sink merging (docs/sinks.md "Merging"): the pure per-sink functions shared by the OpenMP
// driver (sinks.cpp sink_merge_step) and the CUDA driver (sinks_gpu.cu).
//
// Two active sinks a, b merge when they are closer than the merging radius r_merge
// (sinks.merge_radius h_acc; 0 turns merging off) and bound as a pair:
//   E_pair = 1/2 mu |v_b - v_a|^2 - G m_a m_b g(r) < 0,  mu = m_a m_b / (m_a + m_b),
// with g the sinks' softened potential factor (gravity.softening of type 5 and the solver's
// softening kernel; 1/r far out), the potential the two feel from each other in the run. This is
// the choice of FLASH's sink particles (Federrath et al. 2010, ApJ 713, 269: sinks inside each
// other's accretion radius that are bound merge); Bate, Bonnell & Price (1995) did not merge.
//
// Pairing is deterministic (as the clouds', multiphase/cloud_pairing_kern.hpp): every sink picks
// the nearest sink it may merge with (ties by the lower id: a total order), and two sinks merge
// when each is the other's choice (mutual nearest). The pairs are disjoint, so one thread per sink
// may merge its pair without races, and the CPU and the GPU merge the same pairs in any thread
// order. The lower id survives; a sink with several partners merges once per step (its other
// partners at the next steps, if still bound).
//
// The merge conserves mass, linear momentum and angular momentum (sum m x cross v + spin): the
// survivor takes the pair's mass, its centre of mass and centre-of-mass velocity, the merged
// sink's spin, and the pair's orbital angular momentum about its centre of mass as spin
// (merge_into_sink of sink_kern.hpp, the same budget as accretion).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/active_set.hpp"
#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "gravity/gravity_kern.hpp"
#include "sinks/sink_kern.hpp"

namespace mpsph {

// What merging needs of the parameters, in code units.
struct SinkMergeParams {
  double r_merge;  // merging radius (code length); 0: no merging
  double G;
  double eps_sink;  // gravitational softening of sinks (type 5)
  SofteningKernel kernel;
};

// One merge, for sinks.csv's companion file and the log (masses and positions before it).
struct SinkMergeRecord {
  uint64_t id_kept, id_merged;
  double mass_kept, mass_merged;  // code mass
  double separation;              // code length
  double energy;                  // E_pair, code energy (< 0)
};

constexpr int64_t kNoSinkPartner = -1;

// Whether sink i takes part in this (sub)step's merging: a sink (not merged already), active.
MPSPH_HD bool sink_merges_now(const ParticleView& p, const ActiveSet& a, std::size_t i) {
  return p.type[i] == kSink && p.mass[i] > 0.0 && a.contains(p.ti_end, i);
}

// The pair energy of sinks a and b (code energy; < 0: bound), or +inf when they are not closer
// than r_merge or not bound (header comment).
MPSPH_HD double sink_pair_energy(const ParticleView& p, std::size_t a, std::size_t b,
                                 const Box& box, const SinkMergeParams& mp) {
  const Vec3d d = min_image(p.pos[b] - p.pos[a], box);
  const double r2 = norm2(d);
  if (!(r2 < mp.r_merge * mp.r_merge)) return HUGE_VAL;
  const double ma = p.mass[a], mb = p.mass[b];
  const double mu = ma * mb / (ma + mb);
  const GravFactors<double> f = softened_factors(r2, mp.eps_sink * mp.eps_sink, mp.kernel);
  const double e = 0.5 * mu * norm2(p.vel[b] - p.vel[a]) - mp.G * ma * mb * f.g;
  return e < 0.0 ? e : HUGE_VAL;
}

// Whether a partner at squared distance r2_a with id id_a is chosen over one at (r2_b, id_b).
MPSPH_HD bool sink_partner_before(double r2_a, uint64_t id_a, double r2_b, uint64_t id_b) {
  return r2_a < r2_b || (r2_a == r2_b && id_a < id_b);
}

// The partner sink slot q (of sinks[0..n), store indices) chooses: the nearest sink it may merge
// with (ties by the lower id), or kNoSinkPartner.
MPSPH_HD int64_t choose_sink_partner(const ParticleView& p, const ActiveSet& a,
                                     const uint32_t* sinks, int n, const Box& box,
                                     const SinkMergeParams& mp, int q) {
  const std::size_t i = sinks[q];
  if (!(mp.r_merge > 0.0) || !sink_merges_now(p, a, i)) return kNoSinkPartner;
  int64_t best = kNoSinkPartner;
  double best_r2 = 0.0;
  uint64_t best_id = 0;
  for (int k = 0; k < n; ++k) {
    const std::size_t j = sinks[k];
    if (k == q || !sink_merges_now(p, a, j)) continue;
    if (!(sink_pair_energy(p, i, j, box, mp) < HUGE_VAL)) continue;
    const double r2 = norm2(min_image(p.pos[j] - p.pos[i], box));
    if (best == kNoSinkPartner || sink_partner_before(r2, p.id[j], best_r2, best_id)) {
      best = k;
      best_r2 = r2;
      best_id = p.id[j];
    }
  }
  return best;
}

// Sink j merges into sink s (s survives): s takes j's spin, then merge_into_sink adds j's mass and
// momentum and the pair's orbital angular momentum (sink_kern.hpp); j is left with mass 0, no
// spin and type kRemoved for the next order stage.
MPSPH_HD void merge_sinks(const ParticleView& p, std::size_t s, std::size_t j, const Box& box) {
  p.spin[s] += p.spin[j];
  p.spin[j] = Vec3d{0, 0, 0};
  merge_into_sink(p, s, j, box);
  p.accreted_mass[j] = 0.0;
}

// Slot q (partner[] by slot): when q and its partner chose each other and q has the lower id,
// merges the pair into q's sink, fills *rec and returns true; else false.
MPSPH_HD bool resolve_sink_pair(const ParticleView& p, const uint32_t* sinks,
                                const int64_t* partner, const Box& box, const SinkMergeParams& mp,
                                int q, SinkMergeRecord* rec) {
  const int64_t pq = partner[q];
  if (pq == kNoSinkPartner || partner[pq] != q) return false;
  const std::size_t s = sinks[q], j = sinks[pq];
  if (p.id[j] < p.id[s]) return false;
  rec->id_kept = p.id[s];
  rec->id_merged = p.id[j];
  rec->mass_kept = p.mass[s];
  rec->mass_merged = p.mass[j];
  rec->separation = norm(min_image(p.pos[j] - p.pos[s], box));
  rec->energy = sink_pair_energy(p, s, j, box, mp);
  merge_sinks(p, s, j, box);
  return true;
}

}  // namespace mpsph
