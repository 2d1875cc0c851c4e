// Parameters of self-gravity (PHYSICS.md section 2); member initialisers are the defaults.
#pragma once

#include <array>

namespace mpsph {

class Config;
class Schema;

enum class GravityMethod { Tree, Direct };
enum class OpeningCriterion { Geometric, Relative };
enum class SofteningKernel { Plummer, Spline };
// What a tree solver does with its tree before a walk. Rebuild: keys, sort, topology and moments
// from the current positions. Refit: the last build's topology (which particles each node holds)
// with every node's tight box, centre of mass, quadrupole and softening recomputed from the current
// positions - valid while the caller's particle order is that of the last build (block substeps
// inside a synchronisation segment; docs/timestepping.md states the rule and its error). A refit
// without a matching build (none yet, another N, leaf or group size) rebuilds.
enum class TreeUpdate { Rebuild, Refit };

struct GravityParams {
  bool enabled = true;
  GravityMethod method = GravityMethod::Tree;
  // The GADGET relative criterion (Springel 2005 eq. 18) by default, alpha = rel_tol = 0.004: on
  // the H200 at N = 1e7 (bench_gravity_gpu tree, 2026-11-25) it walks 224 (Plummer) and 245
  // (Hernquist) M particles/s at p99 relative force errors of 7.1e-4 and 8.6e-4 (bound 1e-3),
  // against 43 and 52 M/s for theta 0.4 (p99 2.7e-4, 2.4e-4); 0.006 exceeds the bound on the
  // Hernquist halo. The first evaluation of a run (no |a_old| yet) and target groups holding a
  // particle without one use the geometric criterion with theta.
  OpeningCriterion criterion = OpeningCriterion::Relative;
  // Barnes-Hut opening angle (geometric criterion), leaf and group sizes: measured together
  // (bench_gravity --sweep). theta 0.4 with leaves of 32 and groups of 64 keeps the 99th-percentile
  // relative force error at 3-5e-4 on Plummer spheres of 1e4..1e6 particles (bound: 1e-3) and
  // walks 1.7x faster than leaves of 16, groups of 32 at theta 0.35, the same accuracy.
  double theta = 0.4;
  double rel_tol = 0.004;  // GADGET relative criterion: alpha in G M/r^2 (l/r)^2 <= alpha |a_old|
  double theta_max = 1.0;  // relative criterion: nodes with l >= theta_max d are opened as well
  int leaf_size = 32;      // max particles in a leaf
  int group_size = 64;     // max targets sharing one interaction list in the tree walk
  SofteningKernel kernel = SofteningKernel::Plummer;
  std::array<double, 6> softening{};  // per particle type (code length)
};

void add_gravity_params(Schema& schema);
GravityParams gravity_params_from(const Config& cfg);

}  // namespace mpsph
