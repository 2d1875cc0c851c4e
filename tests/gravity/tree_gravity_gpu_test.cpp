// GPU tree gravity (GpuGravity) against the CPU tree on the same particles - the same octree, the
// same groups and the same opening test, so the same answer up to float rounding - and against
// double-precision direct sums on Plummer and Hernquist spheres of 1e5 and 1e6 particles.
#ifdef MPSPH_HAVE_CUDA

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "gravity/direct_gravity.hpp"
#include "gravity/gpu_gravity_test_support.hpp"
#include "gravity/gravity_gpu.hpp"
#include "gravity/gravity_solver.hpp"
#include "gravity/octree.hpp"
#include "setups/hernquist.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;
using test::acc_errors;
using test::Percentiles;
using test::pot_errors;

namespace {

// As the CPU tree tests: eps = 0.01 r_vir, so the tree's truncation error dominates in the core.
constexpr double kEps = 0.01;

struct Result {
  std::vector<Vec3d> acc;
  std::vector<double> pot;
  TreeWalkStats stats;
};

// `calls` evaluations in a row (the relative criterion uses |a| of the previous one; with
// `previous`, the first call already uses the store's acc_grav).
Result cpu_tree(ParticleStore s, const GravityParams& p, int calls, bool previous = false) {
  GravitySolver solver;
  if (previous) solver.assume_previous();
  for (int c = 0; c < calls; ++c) solver.compute(s, p, 1.0);
  return {s.acc_grav, s.pot, solver.last_walk_stats()};
}

Result gpu_tree(const ParticleStore& s, const GravityParams& p, int calls, bool previous = false) {
  DeviceParticles d;
  test::upload_gravity(d, s);
  GpuGravity solver;
  if (previous) solver.assume_previous();
  for (int c = 0; c < calls; ++c) solver.compute(d.view(), p, 1.0);
  ParticleStore out = s;
  test::download_gravity(d, out);
  return {out.acc_grav, out.pot, solver.last_walk_stats()};
}

// A Plummer sphere with acc_grav from a geometric CPU walk: the |a_old| of the next walks.
ParticleStore plummer_with_forces(std::size_t n, uint64_t seed, GravityParams p) {
  ParticleStore s = make_plummer(n, seed);
  p.criterion = OpeningCriterion::Geometric;
  GravitySolver first;
  first.compute(s, p, 1.0);
  return s;
}

double rel_diff(std::size_t a, std::size_t b) {
  return std::fabs(double(a) - double(b)) / double(b);
}

// Same tree, groups and opening test: the interaction lists are the CPU's. The GPU evaluates them
// in another order, with FMAs and with rsqrt/rcp approximations (<= 2 ulp), so a target's sum of a
// few thousand float terms moves by ~1e-6 of |a| (more where the terms cancel, near the centre).
// An opening test whose two sides differ by less than a float ulp can go the other way under FMA
// contraction; that swaps one node's multipole for its particles, which changes the interaction
// counts by a few and a few targets' accelerations by at most the tree error (1e-3).
void compare(const char* name, const Result& cpu, const Result& gpu) {
  const std::size_t n = cpu.acc.size();
  const Percentiles ea = acc_errors(gpu.acc, cpu.acc, n);
  const Percentiles ep = pot_errors(gpu.pot, cpu.pot, n);
  std::printf(
      "GPU vs CPU tree, %s: |da|/|a| median %.2e p99 %.2e p99.9 %.2e max %.2e; |dphi|/|phi| "
      "p99 %.2e max %.2e; groups %zu/%zu, node interactions %zu/%zu, particle interactions "
      "%zu/%zu\n",
      name, ea.median, ea.p99, ea.p999, ea.max, ep.p99, ep.max, gpu.stats.groups, cpu.stats.groups,
      gpu.stats.node_interactions, cpu.stats.node_interactions, gpu.stats.particle_interactions,
      cpu.stats.particle_interactions);
  CHECK(gpu.stats.groups == cpu.stats.groups);
  CHECK(rel_diff(gpu.stats.node_interactions, cpu.stats.node_interactions) <= 1e-4);
  CHECK(rel_diff(gpu.stats.particle_interactions, cpu.stats.particle_interactions) <= 1e-4);
  CHECK(ea.median <= 5e-6);
  CHECK(ea.p99 <= 5e-5);
  CHECK(ea.max <= 1e-3);
  // The potential is a sum of terms of one sign: no cancellation, float rounding only.
  CHECK(ep.p99 <= 1e-5);
  CHECK(ep.max <= 1e-4);
}

ParticleStore six_types(std::size_t n, uint64_t seed) {
  ParticleStore s = make_plummer(n, seed);
  for (std::size_t i = 0; i < s.size(); ++i) s.type[i] = uint8_t(i * 6 / s.size());
  return s;
}

}  // namespace

TEST_CASE("GPU octree: the CPU octree's order, nodes and moments", "[gpu][gravity][tree]") {
  ParticleStore s = six_types(30000, 11);
  GravityParams p;
  p.softening = {0.005, 0.01, 0.02, 0.04, 0.01, 0.005};
  std::vector<float> eps(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) eps[i] = float(p.softening[s.type[i]]);
  Octree cpu;
  cpu.build(s.pos.data(), s.mass.data(), eps.data(), s.size(), p.leaf_size);

  DeviceParticles d;
  test::upload_gravity(d, s);
  GpuGravity gpu;
  gpu.compute(d.view(), p, 1.0);
  std::vector<OctreeNode> nodes;
  std::vector<uint32_t> order;
  gpu.download_tree(nodes, order);

  // Same keys and a stable sort on both sides: the same permutation, the same nodes.
  CHECK(order == cpu.order());
  REQUIRE(nodes.size() == cpu.nodes().size());
  std::size_t structure = 0;
  double com_err = 0.0, mass_err = 0.0, quad_err = 0.0, box_err = 0.0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const OctreeNode& a = nodes[k];
    const OctreeNode& b = cpu.nodes()[k];
    if (a.begin != b.begin || a.end != b.end || a.n_child != b.n_child ||
        (b.n_child > 0 && a.child_begin != b.child_begin)) {
      ++structure;
    }
    // Moments are summed in double (the GPU contracts to FMAs), then rounded to float.
    const double l = std::max(double(b.size), 1e-12);
    com_err = std::max(com_err, norm(a.com - b.com) / l);
    mass_err = std::max(mass_err, std::fabs(double(a.mp.mass) / b.mp.mass - 1.0));
    const double ml2 = double(b.mp.mass) * l * l;
    const float qa[6] = {a.mp.qxx, a.mp.qxy, a.mp.qxz, a.mp.qyy, a.mp.qyz, a.mp.qzz};
    const float qb[6] = {b.mp.qxx, b.mp.qxy, b.mp.qxz, b.mp.qyy, b.mp.qyz, b.mp.qzz};
    for (int c = 0; c < 6; ++c) quad_err = std::max(quad_err, std::fabs(qa[c] - qb[c]) / ml2);
    box_err = std::max(box_err, std::fabs(double(a.size) - b.size) / l);
  }
  std::printf(
      "GPU octree: %zu nodes, %zu structural differences; max com %.1e l, mass %.1e, "
      "quadrupole %.1e M l^2, size %.1e l\n",
      nodes.size(), structure, com_err, mass_err, quad_err, box_err);
  CHECK(structure == 0);
  CHECK(com_err <= 1e-9);     // FMA vs separate rounding in double, relative to tiny nodes
  CHECK(mass_err <= 1.2e-7);  // one float ulp
  CHECK(quad_err <= 1e-6);
  CHECK(box_err <= 1.2e-7);
}

TEST_CASE("GPU tree walk: the CPU walk's answer to float rounding", "[gpu][gravity][tree]") {
  GravityParams p;
  p.softening.fill(kEps);
  SECTION("Plummer 1e5, default parameters") {
    const ParticleStore s = make_plummer(100000, 2024);
    compare("Plummer 1e5 default", cpu_tree(s, p, 1), gpu_tree(s, p, 1));
  }
  SECTION("six types with per-type softening") {
    const ParticleStore s = six_types(20000, 5);
    p.softening = {0.005, 0.01, 0.02, 0.04, 0.01, 0.005};
    compare("six types", cpu_tree(s, p, 1), gpu_tree(s, p, 1));
  }
  SECTION("spline softening") {
    const ParticleStore s = make_plummer(20000, 9);
    p.kernel = SofteningKernel::Spline;
    p.softening.fill(0.02);
    compare("spline", cpu_tree(s, p, 1), gpu_tree(s, p, 1));
  }
  SECTION("relative criterion, second call") {
    const ParticleStore s = make_plummer(20000, 77);
    p.criterion = OpeningCriterion::Relative;
    p.rel_tol = 0.001;
    compare("relative 1e-3", cpu_tree(s, p, 2), gpu_tree(s, p, 2));
  }
  SECTION("relative criterion, targets of tiny |a_old| walking alone") {
    // acc_outlier (gravity_kern.hpp): every 400th particle's |a_old| 1e6 times smaller than its
    // force, so that it walks as a group of one on both sides.
    ParticleStore s = plummer_with_forces(20000, 78, p);
    for (std::size_t i = 0; i < s.size(); i += 400) s.acc_grav[i] = 1e-6 * s.acc_grav[i];
    p.criterion = OpeningCriterion::Relative;
    p.rel_tol = 0.001;
    compare("tiny |a_old| alone", cpu_tree(s, p, 1, true), gpu_tree(s, p, 1, true));
  }
  SECTION("groups of only tiny |a_old| walking target by target") {
    // Lists past kMaxGroupList entries (gravity_kern.hpp): the 300 particles nearest the centre
    // of 1e5 get |a_old| 1e9 times smaller than their force; the groups made only of such
    // targets stop and their targets walk alone on the GPU's second launch, as on the CPU.
    ParticleStore s = plummer_with_forces(100000, 79, p);
    std::vector<std::size_t> by_r(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) by_r[i] = i;
    std::partial_sort(
        by_r.begin(), by_r.begin() + 300, by_r.end(),
        [&](std::size_t a, std::size_t b) { return norm(s.pos[a]) < norm(s.pos[b]); });
    for (std::size_t k = 0; k < 300; ++k) s.acc_grav[by_r[k]] = 1e-9 * s.acc_grav[by_r[k]];
    p.criterion = OpeningCriterion::Relative;
    const Result cpu = cpu_tree(s, p, 1, true), gpu = gpu_tree(s, p, 1, true);
    CHECK(cpu.stats.split_targets >= 32);
    CHECK(gpu.stats.split_targets == cpu.stats.split_targets);
    compare("lists past kMaxGroupList", cpu, gpu);
  }
  SECTION("group sizes 64 (two targets per lane) and 8 (four replicas per target)") {
    const ParticleStore s = make_plummer(20000, 3);
    p.group_size = 64;
    compare("group_size 64", cpu_tree(s, p, 1), gpu_tree(s, p, 1));
    p.group_size = 8;
    p.leaf_size = 4;
    compare("group_size 8, leaf 4", cpu_tree(s, p, 1), gpu_tree(s, p, 1));
  }
}

TEST_CASE("GPU tree walk: every target gets its share of its group's walk cycles",
          "[gpu][gravity][tree]") {
  // walk_cost (core/particle_fields.hpp), the MPI decomposition's gravity cost of a particle: the
  // SM cycles of the warp that walked its group over the group's targets - at least one for every
  // target, written in the caller's order, in every lane layout (1, 2 or 4 targets per group
  // slot).
  GravityParams p;
  p.softening.fill(kEps);
  const ParticleStore s = make_plummer(20000, 31);
  for (const int group : {8, 32, 64}) {
    INFO("group_size " << group);
    p.group_size = group;
    p.leaf_size = std::min(group, 16);
    DeviceParticles d;
    ParticleStore zero = s;
    std::fill(zero.walk_cost.begin(), zero.walk_cost.end(), 0u);
    d.upload(zero,
             {Field::pos, Field::mass, Field::type, Field::acc_grav, Field::pot, Field::walk_cost});
    GpuGravity solver;
    solver.compute(d.view(), p, 1.0);
    ParticleStore out = s;
    d.download(out, {Field::walk_cost});
    CHECK(std::count(out.walk_cost.begin(), out.walk_cost.end(), 0u) == 0);
    // Cycles: a walk of thousands of interactions takes more than a few hundred cycles per group.
    uint64_t sum = 0;
    for (const uint32_t c : out.walk_cost) sum += c;
    const TreeWalkStats& st = solver.last_walk_stats();
    CHECK(double(sum) > double(st.node_interactions + st.particle_interactions) / 32.0);
    // The longest group's walk: within the walk's time (events around the kernel), and at least
    // the cycles of any target's share.
    const uint32_t most = *std::max_element(out.walk_cost.begin(), out.walk_cost.end());
    CHECK(st.longest_group_s > 0.0);
    CHECK(st.longest_group_s <= 1e-3 * solver.last_timings().walk_ms);
    CHECK(st.longest_group_s * 1.0001 >= double(most) / 2.5e9);  // no SM clock runs faster
  }
}

TEST_CASE("GPU double-precision reference: the CPU double direct sum", "[gpu][gravity][direct]") {
  const ParticleStore s = six_types(3000, 21);
  GravityParams p;
  p.softening = {0.005, 0.01, 0.02, 0.04, 0.01, 0.005};
  for (SofteningKernel k : {SofteningKernel::Plummer, SofteningKernel::Spline}) {
    p.kernel = k;
    std::vector<float> eps(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) eps[i] = float(p.softening[s.type[i]]);
    std::vector<Vec3d> ref(s.size()), acc(s.size());
    std::vector<double> ref_pot(s.size()), pot(s.size());
    direct_gravity_double({s.pos.data(), s.mass.data(), eps.data(), s.size()}, k, 1.0, 0, s.size(),
                          ref.data(), ref_pot.data());
    DeviceParticles d;
    test::upload_gravity(d, s);
    direct_gravity_double_gpu(d.view(), p, 1.0, 0, s.size(), acc.data(), pot.data());
    const Percentiles ea = acc_errors(acc, ref, s.size());
    const Percentiles ep = pot_errors(pot, ref_pot, s.size());
    std::printf("GPU vs CPU double direct (%s): max |da|/|a| %.2e, |dphi|/|phi| %.2e\n",
                k == SofteningKernel::Spline ? "spline" : "Plummer", ea.max, ep.max);
    // Both in double; only the order of 3000 terms and FMA contraction differ.
    CHECK(ea.max <= 1e-10);
    CHECK(ep.max <= 1e-12);
  }
}

TEST_CASE("GPU tree accuracy against double-precision direct sums",
          "[gpu][gravity][tree][accuracy]") {
  GravityParams p;  // the default setting: geometric criterion, theta 0.35, leaf 16, group 32
  p.softening.fill(kEps);
  for (std::size_t n : {std::size_t(100000), std::size_t(1000000)}) {
    for (int model = 0; model < 2; ++model) {
      // Hernquist truncated at 100 a: untruncated, the outermost of 1e6 particles sits near
      // 2e6 a and the Morton grid (2^21 cells per axis) could not resolve the cusp.
      HernquistParams hp;
      hp.n = n;
      hp.seed = 7;
      hp.r_max = 100.0;
      const ParticleStore s = model == 0 ? make_plummer(n, 12) : make_hernquist(hp);
      DeviceParticles d;
      test::upload_gravity(d, s);
      GpuGravity solver;
      solver.compute(d.view(), p, 1.0);
      ParticleStore out = s;
      test::download_gravity(d, out);
      // Targets: the first min(n, 1e5) particles, a random sample (positions are drawn
      // independently per id).
      const std::size_t nt = std::min<std::size_t>(n, 100000);
      std::vector<Vec3d> ref(nt);
      std::vector<double> ref_pot(nt);
      direct_gravity_double_gpu(d.view(), p, 1.0, 0, nt, ref.data(), ref_pot.data());
      const Percentiles ea = acc_errors(out.acc_grav, ref, nt);
      const Percentiles ep = pot_errors(out.pot, ref_pot, nt);
      std::printf(
          "GPU tree vs double direct, %s N=%zu (%zu targets): |da|/|a| median %.2e p99 "
          "%.2e p99.9 %.2e max %.2e; |dphi|/|phi| max %.2e\n",
          model == 0 ? "Plummer" : "Hernquist", n, nt, ea.median, ea.p99, ea.p999, ea.max, ep.max);
      CHECK(ea.p99 <= 1e-3);  // the requirement at the default setting
      CHECK(ep.max <= 1e-3);
    }
  }
}

TEST_CASE("GpuGravity: direct method, disabled gravity, G, limits", "[gpu][gravity]") {
  ParticleStore s = make_plummer(5000, 3);
  GravityParams p;
  p.softening.fill(kEps);
  DeviceParticles d;
  test::upload_gravity(d, s);
  GpuGravity solver;

  // gravity.method = direct runs the direct kernel: the same numbers as GpuDirectGravity.
  p.method = GravityMethod::Direct;
  solver.compute(d.view(), p, 1.0);
  ParticleStore a = s;
  test::download_gravity(d, a);
  GpuDirectGravity direct;
  direct.compute(d.view(), p, 1.0, true);
  ParticleStore b = s;
  test::download_gravity(d, b);
  CHECK(a.acc_grav[17].x == b.acc_grav[17].x);
  CHECK(a.pot[4999] == b.pot[4999]);
  CHECK(solver.last_timings().walk_ms > 0.0);

  // G multiplies the float sums in double: exactly proportional. The geometric criterion keeps
  // the interaction lists of the two calls the same (the relative one opens nodes by |a_old|,
  // which the first call changes).
  p.method = GravityMethod::Tree;
  p.criterion = OpeningCriterion::Geometric;
  solver.compute(d.view(), p, 1.0);
  test::download_gravity(d, a);
  solver.compute(d.view(), p, 4.0);
  test::download_gravity(d, b);
  bool proportional = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    proportional =
        proportional && b.acc_grav[i].y == 4.0 * a.acc_grav[i].y && b.pot[i] == 4.0 * a.pot[i];
  }
  CHECK(proportional);
  const GpuGravityTimings t = solver.last_timings();
  CHECK(t.keys_sort_ms > 0.0);
  CHECK(t.walk_ms > 0.0);
  std::printf("GPU tree N=5000: %zu bytes of device memory (%.0f per particle)\n",
              solver.device_bytes(), double(solver.device_bytes()) / s.size());
  CHECK(solver.device_bytes() > 0);

  p.enabled = false;
  solver.compute(d.view(), p, 1.0);
  test::download_gravity(d, a);
  CHECK(a.acc_grav[9].z == 0.0);
  CHECK(a.pot[9] == 0.0);

  p.enabled = true;
  p.group_size = 65;
  CHECK_THROWS_AS(solver.compute(d.view(), p, 1.0), Error);
}

TEST_CASE("GPU tree: one particle, two particles", "[gpu][gravity][tree]") {
  // Newton for two particles at distance r with Plummer softening: a = m r / (r^2 + eps^2)^1.5.
  ParticleStore s = make_plummer(2, 1, 2.0);
  GravityParams p;
  p.softening.fill(0.1);
  DeviceParticles d;
  test::upload_gravity(d, s);
  GpuGravity solver;
  solver.compute(d.view(), p, 1.0);
  ParticleStore out = s;
  test::download_gravity(d, out);
  const Vec3d dx = s.pos[0] - s.pos[1];
  const double s2 = norm2(dx) + 0.01;
  const double a = s.mass[1] * norm(dx) / (s2 * std::sqrt(s2));
  CHECK(norm(out.acc_grav[0]) == Approx(a).epsilon(1e-6));  // float pair term
  CHECK(out.pot[1] == Approx(-s.mass[0] / std::sqrt(s2)).epsilon(1e-6));

  s.resize(1);
  test::upload_gravity(d, s);
  solver.compute(d.view(), p, 1.0);
  test::download_gravity(d, out);
  CHECK(out.acc_grav[0].x == 0.0);
  CHECK(out.pot[0] == 0.0);
}

#endif  // MPSPH_HAVE_CUDA
