// Tree gravity (GravitySolver with the octree walk) against direct summation, N = 10^4.
#include "gravity/tree_gravity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "catch.hpp"
#include "gravity/direct_gravity.hpp"
#include "gravity/gravity_solver.hpp"
#include "gravity/gravity_test_support.hpp"
#include "gravity/octree.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;
using test::ErrorStats;
using test::relative_errors;

namespace {

// eps = 0.01 r_vir: small enough that the tree's truncation error, not the softening, dominates
// the force in the core (inter-particle spacing ~0.05 there at N = 10^4).
constexpr double kEps = 0.01;

struct Reference {
  std::vector<Vec3d> acc;
  std::vector<double> pot;
};

Reference direct_reference(const ParticleStore& s, const GravityParams& p) {
  std::vector<float> eps(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) eps[i] = float(p.softening[s.type[i]]);
  Reference r{std::vector<Vec3d>(s.size()), std::vector<double>(s.size())};
  direct_gravity({s.pos.data(), s.mass.data(), eps.data(), s.size()}, p.kernel, 1.0, 0, s.size(),
                 r.acc.data(), r.pot.data());
  return r;
}

std::vector<std::size_t> all_indices(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

}  // namespace

TEST_CASE("tree gravity: Plummer 1e4 at the default opening angle, and the theta sweep",
          "[gravity][tree]") {
  ParticleStore s = make_plummer(10000, 2024);
  GravityParams p;
  p.softening.fill(kEps);
  const Reference ref = direct_reference(s, p);
  const std::vector<std::size_t> all = all_indices(s.size());
  GravitySolver solver;

  // Requirement: 99% of the particles within 1e-3 relative force error at the default theta (the
  // first call of a solver has no |a_old|: geometric criterion).
  solver.compute(s, p, 1.0);
  const ErrorStats def = relative_errors(s.acc_grav, ref.acc, all);
  std::printf("tree 1e4 default theta %.2f: median %.2e p99 %.2e p99.9 %.2e\n", p.theta, def.median,
              def.p99, def.p999);
  CHECK(def.p99 <= 1e-3);
  // The potential is a smoother sum: its error is far below the force error.
  double max_pot = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    max_pot = std::max(max_pot, std::fabs(s.pot[i] / ref.pot[i] - 1.0));
  }
  CHECK(max_pot < 1e-3);

  // Later calls: the default relative criterion (|a_old| from the call before), same requirement.
  solver.compute(s, p, 1.0);
  const ErrorStats rel = relative_errors(s.acc_grav, ref.acc, all);
  std::printf("tree 1e4 default relative rel_tol %.4f: median %.2e p99 %.2e p99.9 %.2e\n",
              p.rel_tol, rel.median, rel.p99, rel.p999);
  CHECK(rel.p99 <= 1e-3);

  // Every percentile falls as the opening angle closes (geometric criterion).
  p.criterion = OpeningCriterion::Geometric;
  ErrorStats prev{1.0, 1.0, 1.0, 1.0};
  for (double theta : {0.8, 0.6, 0.4, 0.3}) {
    p.theta = theta;
    solver.compute(s, p, 1.0);
    const ErrorStats e = relative_errors(s.acc_grav, ref.acc, all);
    std::printf("tree 1e4 theta %.1f: median %.2e p99 %.2e p99.9 %.2e\n", theta, e.median, e.p99,
                e.p999);
    CHECK(e.median < prev.median);
    CHECK(e.p99 < prev.p99);
    CHECK(e.p999 < prev.p999);
    prev = e;
  }
}

TEST_CASE("tree gravity: all types, per-type softening, store order untouched", "[gravity][tree]") {
  // Six types with softenings spanning a factor 8; particles in (type, id) order as the driver
  // keeps them. The tree must not move them and must match the direct sum with the same pair
  // softening (quadratic mean) for every type.
  ParticleStore s = make_plummer(6000, 5);
  for (std::size_t i = 0; i < s.size(); ++i) s.type[i] = uint8_t(i * 6 / s.size());
  GravityParams p;
  p.softening = {0.005, 0.01, 0.02, 0.04, 0.01, 0.005};
  const ParticleStore before = s;
  const Reference ref = direct_reference(s, p);
  GravitySolver solver;
  solver.compute(s, p, 1.0);
  CHECK(s.id == before.id);
  bool same_pos = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    same_pos = same_pos && s.pos[i].x == before.pos[i].x && s.pos[i].y == before.pos[i].y &&
               s.pos[i].z == before.pos[i].z;
  }
  CHECK(same_pos);
  const ErrorStats e = relative_errors(s.acc_grav, ref.acc, all_indices(s.size()));
  std::printf("tree mixed types: median %.2e p99 %.2e\n", e.median, e.p99);
  CHECK(e.p99 <= 1e-3);
}

TEST_CASE("tree gravity: spline softening", "[gravity][tree]") {
  // Nodes within the spline support are opened, so the tree error is the same multipole error as
  // with Plummer softening: the same 1e-3 bound at p99.
  ParticleStore s = make_plummer(8000, 9);
  GravityParams p;
  p.kernel = SofteningKernel::Spline;
  p.softening.fill(0.02);
  const Reference ref = direct_reference(s, p);
  GravitySolver solver;
  solver.compute(s, p, 1.0);
  const ErrorStats e = relative_errors(s.acc_grav, ref.acc, all_indices(s.size()));
  std::printf("tree spline: median %.2e p99 %.2e\n", e.median, e.p99);
  CHECK(e.p99 <= 1e-3);
}

TEST_CASE("tree gravity: GADGET relative criterion", "[gravity][tree]") {
  // The first call has no |a_old| and uses the geometric criterion; later calls accept a node
  // when G M l^2/d^4 <= rel_tol |a_old|, a bound on the node's force error relative to |a|. The
  // error must fall with rel_tol and, at rel_tol = 1e-3, stay below it for 99% of particles.
  ParticleStore s = make_plummer(10000, 77);
  GravityParams p;
  p.softening.fill(kEps);
  const Reference ref = direct_reference(s, p);
  const std::vector<std::size_t> all = all_indices(s.size());
  double prev_p99 = 1.0;
  for (double tol : {0.005, 0.0025, 0.001}) {
    p.criterion = OpeningCriterion::Relative;
    p.rel_tol = tol;
    GravitySolver solver;
    solver.compute(s, p, 1.0);
    solver.compute(s, p, 1.0);
    const ErrorStats e = relative_errors(s.acc_grav, ref.acc, all);
    std::printf("tree relative %.4f: median %.2e p99 %.2e p99.9 %.2e\n", tol, e.median, e.p99,
                e.p999);
    CHECK(e.p99 < prev_p99);
    prev_p99 = e.p99;
  }
  CHECK(prev_p99 < 1e-3);
}

TEST_CASE("tree gravity: a refitted tree after a drift is as accurate as a rebuilt one",
          "[gravity][tree]") {
  // Block substeps keep the octree's topology inside a synchronisation segment and refit it: tight
  // boxes, centres of mass and quadrupoles from the drifted positions. The opening criteria then
  // see the true node sizes, so the force error stays that of a rebuilt tree (only more nodes are
  // opened where boxes overlap). Drift: every particle moves by v dt with dt = 0.1 (N-body units;
  // a few per cent of the crossing time, up to a few inter-particle spacings in the core).
  ParticleStore s = make_plummer(10000, 4242);
  GravityParams p;
  p.softening.fill(kEps);
  p.criterion = OpeningCriterion::Geometric;
  const std::vector<std::size_t> all = all_indices(s.size());
  GravitySolver refitted;
  refitted.compute(s, p, 1.0);
  const std::vector<Vec3d> built = s.acc_grav;
  // A refit without a drift reproduces the build exactly.
  refitted.compute(s, p, 1.0, ActiveSet{}, TreeUpdate::Refit);
  for (std::size_t i = 0; i < s.size(); i += 97) {
    REQUIRE(s.acc_grav[i].x == built[i].x);
    REQUIRE(s.acc_grav[i].y == built[i].y);
    REQUIRE(s.acc_grav[i].z == built[i].z);
  }

  for (std::size_t i = 0; i < s.size(); ++i) s.pos[i] += 0.1 * s.vel[i];
  const Reference ref = direct_reference(s, p);
  refitted.compute(s, p, 1.0, ActiveSet{}, TreeUpdate::Refit);
  const ErrorStats e_refit = relative_errors(s.acc_grav, ref.acc, all);
  GravitySolver fresh;
  fresh.compute(s, p, 1.0);
  const ErrorStats e_build = relative_errors(s.acc_grav, ref.acc, all);
  std::printf("tree after a drift of 0.1: refit p99 %.2e p99.9 %.2e, rebuild p99 %.2e p99.9 %.2e\n",
              e_refit.p99, e_refit.p999, e_build.p99, e_build.p999);
  CHECK(e_refit.p99 < 1e-3);
  CHECK(e_refit.p99 < 1.5 * e_build.p99);
  CHECK(e_refit.p999 < 1.5 * e_build.p999);
}

TEST_CASE("gravity solver: direct method, G scaling, disabled gravity", "[gravity][tree]") {
  ParticleStore s = make_plummer(500, 3);
  GravityParams p;
  p.softening.fill(kEps);
  p.method = GravityMethod::Direct;
  const Reference ref = direct_reference(s, p);
  GravitySolver solver;
  solver.compute(s, p, 4.3);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.acc_grav[i].x == Approx(4.3 * ref.acc[i].x).epsilon(1e-12));
    CHECK(s.pot[i] == Approx(4.3 * ref.pot[i]).epsilon(1e-12));
  }
  p.enabled = false;
  solver.compute(s, p, 4.3);
  CHECK(s.acc_grav[7].x == 0.0);
  CHECK(s.pot[7] == 0.0);
}

TEST_CASE("tree gravity: the AVX-512 evaluation gives the baseline evaluation's bits",
          "[gravity][tree]") {
  // Restarts and the CPU/GPU comparisons rely on the CPU backend giving the same bits on every
  // x86-64 machine, with or without AVX-512 (tree_gravity.cpp: fixed-width lane sums, no fused
  // multiply-add). Both criteria, both softening kernels, 8000 Plummer particles.
  if (!tree_gravity_uses_avx512())
    WARN("this CPU has no AVX-512: both runs take the baseline copy, the comparison is trivial");
  ParticleStore s = make_plummer(8000, 5);
  std::vector<float> eps(s.size(), 0.01f);
  Octree tree;
  tree.build(s.pos.data(), s.mass.data(), eps.data(), s.size(), 32);
  std::vector<double> a_old(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) a_old[i] = 1.0 + double(i % 7);
  for (const SofteningKernel k : {SofteningKernel::Plummer, SofteningKernel::Spline})
    for (const OpeningCriterion c : {OpeningCriterion::Geometric, OpeningCriterion::Relative}) {
      TreeWalkParams wp;
      wp.opening = {c, k, 0.5f, 0.004f, 1.0f};  // theta_max: the default (gravity_params.hpp)
      std::vector<Vec3d> acc_v(s.size()), acc_b(s.size());
      std::vector<double> pot_v(s.size()), pot_b(s.size());
      const double* old = c == OpeningCriterion::Relative ? a_old.data() : nullptr;
      tree_gravity(tree.view(), wp, 1.0, old, acc_v.data(), pot_v.data());
      wp.allow_avx512 = false;
      tree_gravity(tree.view(), wp, 1.0, old, acc_b.data(), pot_b.data());
      CHECK(std::memcmp(acc_v.data(), acc_b.data(), acc_v.size() * sizeof(Vec3d)) == 0);
      CHECK(std::memcmp(pot_v.data(), pot_b.data(), pot_v.size() * sizeof(double)) == 0);
      CHECK(norm(acc_b[0]) > 0.0);
    }
}

TEST_CASE("tree gravity: each target's walk cost is its interactions, the inactive keep theirs",
          "[gravity][tree]") {
  // The MPI decomposition weighs a particle's gravity by walk_cost (core/particle_cost.hpp): on
  // the CPU a target's node and particle list entries, itself excluded - their sum is the walk's
  // interaction count, and a particle that is no target keeps the value it had.
  ParticleStore s = make_plummer(6000, 11);
  std::vector<float> eps(s.size(), 0.01f);
  Octree tree;
  tree.build(s.pos.data(), s.mass.data(), eps.data(), s.size(), 16);
  TreeWalkParams wp;
  wp.opening = {OpeningCriterion::Geometric, SofteningKernel::Plummer, 0.7f, 0.004f, 1.0f};
  wp.group_size = 32;
  std::vector<Vec3d> acc(s.size());
  std::vector<double> pot(s.size());
  std::vector<uint32_t> cost(s.size(), 0);
  TreeWalkStats st = tree_gravity(tree.view(), wp, 1.0, nullptr, acc.data(), pot.data(), nullptr,
                                  nullptr, 0, cost.data());
  uint64_t sum = 0;
  for (const uint32_t c : cost) sum += c;
  CHECK(std::count(cost.begin(), cost.end(), 0u) == 0);
  CHECK(sum == st.node_interactions + st.particle_interactions);
  // Every third particle active: only those written, with the active groups' interactions.
  std::vector<uint8_t> active(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) active[i] = i % 3 == 0;
  std::vector<uint32_t> again(s.size(), 7u);
  st = tree_gravity(tree.view(), wp, 1.0, nullptr, acc.data(), pot.data(), active.data(), nullptr,
                    0, again.data());
  sum = 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (active[i])
      sum += again[i];
    else
      kept += again[i] == 7u;
  }
  CHECK(kept == s.size() - (s.size() + 2) / 3);
  CHECK(sum == st.node_interactions + st.particle_interactions);
}

TEST_CASE("tree gravity: a target of tiny |a_old| walks alone, not its whole group",
          "[gravity][tree]") {
  // The relative criterion opens nodes until M l^2 / d^4 <= rel_tol |a_old|; a target whose
  // |a_old| is far below its group's largest (acc_outlier, gravity_kern.hpp) walks as a group of
  // one, so its near-direct sum costs its own interactions (at most ~N), not its group's (~32 N).
  const std::size_t n = 6000;
  ParticleStore s = make_plummer(n, 13);
  std::vector<float> eps(n, 0.01f);
  Octree tree;
  tree.build(s.pos.data(), s.mass.data(), eps.data(), n, 8);
  GravityParams gp;
  gp.softening.fill(0.01);
  const Reference ref = direct_reference(s, gp);
  std::vector<double> a_old(n);
  for (std::size_t i = 0; i < n; ++i) a_old[i] = norm(ref.acc[i]);
  TreeWalkParams wp;
  wp.opening = opening_params(gp);  // the relative criterion (the default)
  wp.group_size = 32;
  std::vector<Vec3d> acc(n);
  std::vector<double> pot(n);
  const TreeWalkStats base =
      tree_gravity(tree.view(), wp, 1.0, a_old.data(), acc.data(), pot.data());
  // The particle nearest the centre, as if its pulls cancelled: |a_old| 1e6 times smaller.
  std::size_t c = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (norm(s.pos[i]) < norm(s.pos[c])) c = i;
  a_old[c] *= 1e-6;
  const TreeWalkStats tiny =
      tree_gravity(tree.view(), wp, 1.0, a_old.data(), acc.data(), pot.data());
  const double extra = double(tiny.node_interactions + tiny.particle_interactions) -
                       double(base.node_interactions + base.particle_interactions);
  INFO("extra interactions " << extra << " for N = " << n);
  CHECK(extra > 0.5 * double(n));  // it opens most of the tree ...
  CHECK(extra < 2.0 * double(n));  // ... for itself alone
  // Its force is then close to the direct sum (float sums of ~N terms).
  CHECK(norm(acc[c] - ref.acc[c]) <= 1e-4 * norm(ref.acc[c]));
}

TEST_CASE("tree gravity: a group whose lists pass kMaxGroupList walks target by target",
          "[gravity][tree]") {
  // Groups whose targets all have a tiny |a_old| (none walks alone by acc_outlier) open most of
  // the tree: past kMaxGroupList entries (gravity_kern.hpp) each target walks alone. The 300
  // particles nearest the centre of an 80 000-particle sphere get |a_old| 1e9 times smaller than
  // their force: their groups' lists hold nearly every particle (> 65 536) and split; with the
  // true |a_old| no group does.
  const std::size_t n = 80000;
  ParticleStore s = make_plummer(n, 17);
  GravityParams gp;
  gp.softening.fill(0.01);
  gp.criterion = OpeningCriterion::Geometric;
  GravitySolver first;
  first.compute(s, gp, 1.0);
  std::vector<double> a_old(n);
  for (std::size_t i = 0; i < n; ++i) a_old[i] = norm(s.acc_grav[i]);
  std::vector<float> eps(n, 0.01f);
  Octree tree;
  tree.build(s.pos.data(), s.mass.data(), eps.data(), n, 16);
  gp.criterion = OpeningCriterion::Relative;
  TreeWalkParams wp;
  wp.opening = opening_params(gp);
  wp.group_size = 32;
  std::vector<Vec3d> acc(n);
  std::vector<double> pot(n);
  const TreeWalkStats normal =
      tree_gravity(tree.view(), wp, 1.0, a_old.data(), acc.data(), pot.data());
  CHECK(normal.split_targets == 0);
  std::vector<std::size_t> by_r(n);
  std::iota(by_r.begin(), by_r.end(), std::size_t{0});
  std::partial_sort(by_r.begin(), by_r.begin() + 300, by_r.end(),
                    [&](std::size_t a, std::size_t b) { return norm(s.pos[a]) < norm(s.pos[b]); });
  for (std::size_t k = 0; k < 300; ++k) a_old[by_r[k]] *= 1e-9;
  const TreeWalkStats tiny =
      tree_gravity(tree.view(), wp, 1.0, a_old.data(), acc.data(), pot.data());
  INFO("targets walked alone: " << tiny.split_targets);
  CHECK(tiny.split_targets >= 32);
  CHECK(tiny.split_targets <= n / 100);  // the central groups' members, not more
}
