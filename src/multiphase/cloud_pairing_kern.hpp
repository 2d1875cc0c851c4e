// Deterministic pairing of colliding clouds: every cloud picks its partner (the nearest touching,
// approaching cloud, ties by the lower id: a total order, so no thread order enters), and two
// clouds collide when each is the other's choice (mutual nearest). Every cloud so takes part in at
// most one collision per step, the pairs are disjoint (no two threads write the same cloud), and
// the CPU and the GPU pair the same clouds. The pair is handled by its lower-id cloud.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/active_set.hpp"
#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "multiphase/cloud_collision_kern.hpp"
#include "multiphase/cloud_grid_kern.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

// The clouds of a step: store indices [begin, begin + n), sorted by cell key (keys[k] is the key
// of cloud begin + local[k]).
struct CloudSet {
  CloudGrid grid;
  const uint64_t* keys;
  const uint32_t* local;
  std::size_t begin, n;
};

constexpr int64_t kNoPartner = -1;

// Whether cloud i takes part in this (sub)step's collisions: active, not removed.
MPSPH_HD bool cloud_collides_now(const ParticleView& s, const ActiveSet& a, std::size_t i) {
  return s.type[i] == kCloud && s.mass[i] > 0.0 && a.contains(s.ti_end, i);
}

// The partner cloud i chooses (store index), or kNoPartner.
MPSPH_HD int64_t choose_cloud_partner(const ParticleView& s, const ActiveSet& a, const CloudSet& c,
                                      const Box& box, double pi_sigma, std::size_t i) {
  if (!cloud_collides_now(s, a, i)) return kNoPartner;
  const Vec3d x_i = s.pos[i], v_i = s.vel[i];
  const double r_i = cloud_radius(s.mass[i], pi_sigma);
  int64_t best = kNoPartner;
  double best_r2 = 0.0;
  uint64_t best_id = 0;
  for_each_cloud_near(c.grid, c.keys, c.n, x_i, [&](std::size_t k) {
    const std::size_t j = c.begin + c.local[k];
    if (j == i || !cloud_collides_now(s, a, j)) return;
    const Vec3d x_ij = min_image(x_i - s.pos[j], box);
    const double r_sum = r_i + cloud_radius(s.mass[j], pi_sigma);
    if (!clouds_collide(x_ij, v_i - s.vel[j], r_sum)) return;
    const double r2 = norm2(x_ij);
    if (best == kNoPartner || closer_partner(r2, s.id[j], best_r2, best_id)) {
      best = int64_t(j);
      best_r2 = r2;
      best_id = s.id[j];
    }
  });
  return best;
}

// Cloud i (store index; partner[] by local index i - begin): when i and its partner chose each
// other and i has the lower id, collides the pair in (sub)step `step` (tick length tick_len) and
// returns the energy radiated, else 0.
MPSPH_HD double resolve_cloud_pair(const ParticleView& s, const CloudCollisionParams& p,
                                   const int64_t* partner, std::size_t begin, const Box& box,
                                   int64_t step, double tick_len, std::size_t i) {
  const int64_t pj = partner[i - begin];
  if (pj == kNoPartner) return 0.0;
  const std::size_t j = std::size_t(pj);
  if (partner[j - begin] != int64_t(i) || s.id[j] < s.id[i]) return 0.0;
  const CollisionOutcome out = collide_clouds(p, stored_cloud_pair(s, i, j, box, p.pi_sigma));
  apply_collision(s, i, j, out, box, step, particle_step(s, i, tick_len),
                  particle_step(s, j, tick_len));
  return out.radiated;
}

}  // namespace mpsph
