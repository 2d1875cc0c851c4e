// Self-gravity stage of the step (DESIGN.md section 2): the simulation driver's one entry point.
#pragma once

#include <vector>

#include "core/active_set.hpp"
#include "gravity/gravity_params.hpp"
#include "gravity/octree.hpp"
#include "gravity/tree_gravity.hpp"

namespace mpsph {

class ParticleStore;

struct GravityTimings {
  double build_s = 0.0;  // octree build (keys, sort, nodes, moments)
  double walk_s = 0.0;   // tree walk, or the direct sum
};

class GravitySolver {
 public:
  // Writes s.acc_grav[i] and s.pot[i] (potential per unit mass, self-interaction excluded) for
  // every particle of every type, with softening p.softening[type]. The store is not reordered.
  // With p.enabled false both are set to zero. The tree and its buffers persist between calls. The
  // relative opening criterion needs |a| from a previous call: the first call of a solver uses the
  // geometric criterion, and so does any target group holding a particle with acc_grav = 0 (e.g. a
  // newly formed star).
  // With an active subset (individual time steps) only the active particles are targets (their
  // acc_grav and pot are written; every particle is a source).
  // `update`: TreeUpdate::Refit keeps the last build's topology (the store must be in the order of
  // that build); Rebuild (the default) builds the tree anew.
  void compute(ParticleStore& s, const GravityParams& p, double G, const ActiveSet& active = {},
               TreeUpdate update = TreeUpdate::Rebuild);
  // The store's acc_grav is a previous evaluation's (a restart from a checkpoint): the next call
  // may use the relative criterion at once, as the uninterrupted run would.
  void assume_previous() { have_previous_ = true; }

  const Octree& tree() const { return tree_; }
  const GravityTimings& last_timings() const { return timings_; }
  const TreeWalkStats& last_walk_stats() const { return stats_; }

 private:
  Octree tree_;
  std::vector<float> eps_;
  std::vector<double> acc_old_;
  std::vector<uint8_t> active_mask_;
  bool have_previous_ = false;
  GravityTimings timings_;
  TreeWalkStats stats_;
};

}  // namespace mpsph
