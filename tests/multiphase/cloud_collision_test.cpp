// Two-cloud collisions against their analytic outcome (PHYSICS.md section 5, scheme B), the
// deterministic pairing of many clouds, and the cloud grid against a brute-force search.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "multiphase/cloud_pairing_kern.hpp"
#include "multiphase/sticky_clouds.hpp"
#include "timestep/integrator_kern.hpp"

using namespace mpsph;

namespace {

// Unit-free parameters: R = sqrt(m / pi_sigma) with pi_sigma = 1.
CloudCollisionParams params(double G, double beta, double m_max = 1e30) {
  return CloudCollisionParams{1.0, G, beta, beta, m_max};
}

struct Cloud {
  uint64_t id;
  double m;
  Vec3d x, v;
  double z_fe, z_o;
};

ParticleStore clouds(const std::vector<Cloud>& c) {
  ParticleStore s;
  s.resize(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    s.id[i] = c[i].id;
    s.type[i] = kCloud;
    s.mass[i] = c[i].m;
    s.pos[i] = s.pos0[i] = c[i].x;
    s.vel[i] = s.vel0[i] = c[i].v;
    s.acc[i] = s.acc0[i] = s.acc_grav[i] = {0, 0, 0};
    s.z_fe[i] = c[i].z_fe;
    s.z_o[i] = c[i].z_o;
    s.x_h[i] = 0.7;
    s.dt_limit[i] = 1.0;
  }
  return s;
}

// All clouds collide in (sub)step 6 (a merged cloud records coalescence_step 7).
CloudCollisionStats collide_all(ParticleStore& s, const Box& box, const CloudCollisionParams& p,
                                CpuCloudScratch& scratch) {
  return collide_cloud_set(s.view(), ActiveSet{}, box, p, 0, s.size(), 6, 0.0, scratch);
}

// Two clouds, m = 1 and 2 (R = 1 and sqrt 2), overlapping (r = 2.0025 < 2.414) and approaching,
// |v_ij|^2 = 0.2625.
const Cloud kA{7, 1.0, {0, 0, 0}, {0.3, 0.1, 0.0}, 1e-3, 6e-3};
const Cloud kB{3, 2.0, {2.0, 0.1, 0.0}, {-0.2, 0.0, 0.05}, 2e-3, 4e-3};

double rel(double a, double b) {
  return std::fabs(a - b) / std::max(std::fabs(b), 1e-300);
}

}  // namespace

TEST_CASE("two clouds below the escape speed coalesce: mass, momentum and metals exact",
          "[multiphase][collision]") {
  // Escape speed^2 2 G M/(R_i + R_j) = 2.49 for G = 1: well above |v_ij|^2 = 0.2625.
  ParticleStore s = clouds({kA, kB});
  CpuCloudScratch scratch;
  const CloudCollisionStats st = collide_all(s, Box{}, params(1.0, 0.7), scratch);
  REQUIRE(st.collisions == 1);
  REQUIRE(st.mergers == 1);
  // The survivor is the lower id (B, index 1); A is removed with mass 0.
  CHECK(s.type[0] == kRemoved);
  CHECK(s.mass[0] == 0.0);
  CHECK(s.type[1] == kCloud);
  const double M = kA.m + kB.m;
  CHECK(s.mass[1] == M);  // one addition of two small integers: exact
  // Momentum and metal masses: one rounding of each product and of the division by M, so a few
  // ulp of the largest term.
  const Vec3d p0 = kA.m * kA.v + kB.m * kB.v;
  const Vec3d p1 = s.mass[1] * s.vel[1];
  CHECK(norm(p1 - p0) <= 4e-16 * (kA.m * norm(kA.v) + kB.m * norm(kB.v)));
  CHECK(rel(s.mass[1] * s.z_fe[1], kA.m * kA.z_fe + kB.m * kB.z_fe) <= 4e-16);
  CHECK(rel(s.mass[1] * s.z_o[1], kA.m * kA.z_o + kB.m * kB.z_o) <= 4e-16);
  // Centre of mass, and the step's base moves with it.
  const Vec3d xcm = (1.0 / M) * (kA.m * kA.x + kB.m * kB.x);
  CHECK(norm(s.pos[1] - xcm) <= 4e-16 * norm(kB.x));
  CHECK(norm(s.vel0[1] - s.vel[1]) <= 4e-16 * norm(p0));
  // Radiated: the kinetic energy of the relative motion, 1/2 mu v_ij^2, which is also the loss of
  // kinetic energy.
  const double mu = kA.m * kB.m / M;
  const double e_rel = 0.5 * mu * norm2(kA.v - kB.v);
  CHECK(rel(st.radiated, e_rel) <= 1e-15);
  const double ek0 = 0.5 * kA.m * norm2(kA.v) + 0.5 * kB.m * norm2(kB.v);
  const double ek1 = 0.5 * M * norm2(s.vel[1]);
  CHECK(std::fabs(ek0 - ek1 - st.radiated) <= 1e-15 * ek0);
  // The merged cloud records the coalescence's step (1 + index 6) for star formation.
  CHECK(s.coalescence_step[1] == 7);
}

TEST_CASE("with self-gravity a coalescence books the pair's orbital energy: E_total is kept",
          "[multiphase][collision]") {
  // Two clouds (masses 2 and 3, G = 1) released at rest 10 apart fall together on their softened
  // mutual gravity (Plummer and spline, eps 2: slow enough to coalesce) and touch at r = 0.9:
  // energy conservation gives
  // 1/2 mu v^2 = G m_i m_j (g(r) - g(10)). The merged cloud has no pair term left in
  // E_potential, so the particles' K + W changes from -G m_i m_j g(10) to 0 (the centre of mass
  // is at rest): the account must be exactly that, -G m_i m_j g(10) (negative: bound clouds), for
  // E_total = K + W + account to stay constant. Booking 1/2 mu v^2 alone misses G m_i m_j g(r).
  for (SofteningKernel kernel : {SofteningKernel::Plummer, SofteningKernel::Spline}) {
    CloudCollisionParams p = params(1.0, 0.7);
    p.self_gravity = true;
    p.kernel = kernel;
    p.eps2 = 4.0;
    const double mi = 2.0, mj = 3.0, r = 0.9, d0 = 10.0;
    const double g_r = softened_factors(r * r, p.eps2, kernel).g;
    const double g_0 = softened_factors(d0 * d0, p.eps2, kernel).g;
    const double mu = mi * mj / (mi + mj), v = std::sqrt(2.0 * mi * mj * (g_r - g_0) / mu);
    CloudPair c;
    c.m_i = mi, c.m_j = mj;
    c.r_i = c.r_j = 1.0;  // overlapping: r < R_i + R_j
    c.x_ij = {r, 0.0, 0.0};
    c.v_i = {-v * mj / (mi + mj), 0.0, 0.0};  // approaching, centre of mass at rest
    c.v_j = {v * mi / (mi + mj), 0.0, 0.0};
    const CollisionOutcome out = collide_clouds(p, c);
    REQUIRE(out.coalesce);
    INFO("kernel " << int(kernel) << ": radiated " << out.radiated << ", expected "
                   << -mi * mj * g_0);
    CHECK(std::fabs(out.radiated + mi * mj * g_0) <= 1e-13 * mi * mj * g_r);
    CHECK(norm(out.v_i) <= 1e-15 * v);
    // Without self-gravity: the kinetic energy alone, as before.
    p.self_gravity = false;
    CHECK(rel(collide_clouds(p, c).radiated, 0.5 * mu * v * v) <= 1e-15);
  }
}

TEST_CASE("a collision changes the clouds' end states, not where they were before it",
          "[multiphase][collision]") {
  // The collision happens at the end of the clouds' steps (the force evaluation), so the
  // corrector, x1 = x0 + (v0 + v1) dt/2 with v1 = v0 + (a0 + a) dt/2, must end each cloud where it
  // would have ended without it, with the new velocity. Clouds on different rungs (steps 0.5 and
  // 0.125) with accelerations, so the base of the step matters.
  const double dt_a = 0.5, dt_b = 0.125;
  ParticleStore s = clouds({kA, kB});
  s.acc0[0] = {0.02, -0.01, 0.0}, s.acc[0] = {0.03, 0.0, 0.01};
  s.acc0[1] = {-0.01, 0.02, 0.0}, s.acc[1] = {0.0, 0.01, -0.02};
  s.pos0[0] = s.pos[0] - Vec3d{0.1, 0.0, 0.0};  // bases that differ from the predicted state
  s.pos0[1] = s.pos[1] + Vec3d{0.0, 0.05, 0.0};
  const ParticleStore before = s;
  auto end_state = [](const ParticleStore& p, std::size_t i, double dt) {
    return correct_kinematics(p.pos0[i], p.vel0[i], p.acc0[i], p.acc[i], dt);
  };
  SECTION("bounce: the end positions stay, the end velocities change by the bounce's dv") {
    const CollisionOutcome out =
        collide_clouds(params(1e-3, 0.7), stored_cloud_pair(s.view(), 0, 1, Box{}, 1.0));
    REQUIRE(!out.coalesce);
    apply_collision(s.view(), 0, 1, out, Box{}, 6, dt_a, dt_b);
    const double dts[2] = {dt_a, dt_b};
    const Vec3d dv[2] = {out.v_i - before.vel[0], out.v_j - before.vel[1]};
    for (std::size_t i = 0; i < 2; ++i) {
      const KinematicState e0 = end_state(before, i, dts[i]), e1 = end_state(s, i, dts[i]);
      CHECK(norm(e1.pos - e0.pos) <= 1e-15 * norm(e0.pos));
      CHECK(norm(e1.vel - (e0.vel + dv[i])) <= 1e-15 * norm(e0.vel));
    }
  }
  SECTION("coalescence: the merged cloud ends at the two corrected clouds' centre of mass") {
    const CollisionOutcome out =
        collide_clouds(params(1.0, 0.7), stored_cloud_pair(s.view(), 0, 1, Box{}, 1.0));
    REQUIRE(out.coalesce);
    apply_collision(s.view(), 0, 1, out, Box{}, 6, dt_a, dt_b);
    // B (index 1, the lower id) survives on its own step dt_b.
    REQUIRE(s.type[0] == kRemoved);
    const KinematicState ea = end_state(before, 0, dt_a), eb = end_state(before, 1, dt_b);
    const KinematicState em = end_state(s, 1, dt_b);
    const double M = kA.m + kB.m;
    const Vec3d x_cm = (1.0 / M) * (kA.m * ea.pos + kB.m * eb.pos);
    const Vec3d p_end = kA.m * ea.vel + kB.m * eb.vel;
    CHECK(norm(em.pos - x_cm) <= 1e-15 * norm(x_cm));
    CHECK(norm(M * em.vel - p_end) <= 1e-15 * norm(p_end));
  }
}

TEST_CASE("two clouds above the escape speed bounce with restitution in the centre-of-mass frame",
          "[multiphase][collision]") {
  const double beta = 0.7;
  // G = 1e-3: escape speed^2 = 2.5e-3, below |v_ij|^2 = 0.2625.
  for (const CloudCollisionParams p : {params(1e-3, beta), params(1.0, beta, 2.5)}) {
    ParticleStore s = clouds({kA, kB});
    CpuCloudScratch scratch;
    const CloudCollisionStats st = collide_all(s, Box{}, p, scratch);
    REQUIRE(st.collisions == 1);
    REQUIRE(st.mergers == 0);  // the second: slow enough, but M = 3 >= m_max = 2.5
    CHECK(s.type[0] == kCloud);
    CHECK(s.type[1] == kCloud);
    const double M = kA.m + kB.m, mu = kA.m * kB.m / M;
    const Vec3d vcm0 = (1.0 / M) * (kA.m * kA.v + kB.m * kB.v);
    const Vec3d vcm1 = (1.0 / M) * (s.mass[0] * s.vel[0] + s.mass[1] * s.vel[1]);
    CHECK(norm(vcm1 - vcm0) <= 4e-16 * norm(vcm0));
    // v_ij' = -beta (v_ij.n) n + beta v_ij,t with n along x_ij, to round-off.
    const Vec3d n = (1.0 / norm(kA.x - kB.x)) * (kA.x - kB.x);
    const Vec3d vij = kA.v - kB.v;
    const double vn = dot(vij, n);
    const Vec3d expect = (-beta * vn) * n + beta * (vij - vn * n);
    const Vec3d got = s.vel[0] - s.vel[1];
    CHECK(norm(got - expect) <= 4e-16 * norm(vij));
    CHECK(dot(got, n) == Approx(-beta * vn).epsilon(1e-14));
    // Radiated = 1/2 mu (|v_ij|^2 - |v_ij'|^2) = 1/2 mu (1 - beta^2) |v_ij|^2 for beta_r = beta_t.
    CHECK(rel(st.radiated, 0.5 * mu * (1 - beta * beta) * norm2(vij)) <= 1e-14);
    const double ek0 = 0.5 * kA.m * norm2(kA.v) + 0.5 * kB.m * norm2(kB.v);
    const double ek1 = 0.5 * kA.m * norm2(s.vel[0]) + 0.5 * kB.m * norm2(s.vel[1]);
    CHECK(std::fabs(ek0 - ek1 - st.radiated) <= 1e-15 * ek0);
    // The corrector's base v0 carries the same change.
    CHECK(norm((s.vel0[0] - kA.v) - (s.vel[0] - kA.v)) == 0.0);
    CHECK(norm((s.vel0[1] - kB.v) - (s.vel[1] - kB.v)) == 0.0);
    // A bounce is no coalescence.
    CHECK(s.coalescence_step[0] == 0);
    CHECK(s.coalescence_step[1] == 0);
  }
}

TEST_CASE("clouds that do not touch or that separate do not collide", "[multiphase][collision]") {
  Cloud far = kB;
  far.x = {2.5, 0, 0};  // r = 2.5 > R_A + R_B = 2.414
  Cloud receding = kB;
  receding.v = {0.5, 0, 0};  // x_ij . v_ij = (-2)(0.3 - 0.5) > 0
  for (const Cloud& b : {far, receding}) {
    ParticleStore s = clouds({kA, b});
    CpuCloudScratch scratch;
    const CloudCollisionStats st = collide_all(s, Box{}, params(1.0, 0.7), scratch);
    CHECK(st.collisions == 0);
    CHECK(st.radiated == 0.0);
    CHECK(s.vel[0].x == kA.v.x);
  }
  // Through a periodic boundary they do touch: x_B = 9.9 is 0.1 + ... from x_A = 0 in a box of 10.
  Cloud wrapped = kB;
  wrapped.x = {-2.0 + 10.0, 0.1, 0};
  wrapped.v = {0.4, 0, 0};  // x_ij = (2, -0.1, 0), v_ij = (-0.1, 0.1, 0): approaching
  Box box;
  box.periodic = true;
  box.size = {10, 10, 10};
  ParticleStore s = clouds({kA, wrapped});
  CpuCloudScratch scratch;
  CHECK(collide_all(s, box, params(1e-3, 0.7), scratch).collisions == 1);
}

namespace {

// n clouds of masses 1..4 in a box of edge L; many overlap.
ParticleStore random_clouds(std::size_t n, double L, bool shift) {
  std::vector<Cloud> c(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 99, kStreamSetup, k); };
    c[i].id = i + 1;
    c[i].m = 1.0 + 3.0 * u(0);
    c[i].x = {L * u(1) - (shift ? 0.3 * L : 0.0), L * u(2), L * u(3)};
    c[i].v = {u(4) - 0.5, u(5) - 0.5, u(6) - 0.5};
    c[i].z_fe = 1e-3 * u(7);
    c[i].z_o = 1e-2 * u(8);
  }
  // Two clouds at the same distance from a third: the tie goes to the lower id.
  c[1].x = c[0].x + Vec3d{1.0, 0, 0};
  c[2].x = c[0].x - Vec3d{1.0, 0, 0};
  c[1].v = c[0].v - Vec3d{0.1, 0, 0};
  c[2].v = c[0].v + Vec3d{0.1, 0, 0};
  return clouds(c);
}

// The partner of every cloud by brute force over all pairs, as ids (0: none).
std::vector<uint64_t> brute_force_partners(ParticleStore& s, const Box& box, double pi_sigma) {
  const ParticleView v = s.view();
  std::vector<uint64_t> out(s.size(), 0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    double best = 0;
    for (std::size_t j = 0; j < s.size(); ++j) {
      if (j == i) continue;
      const Vec3d x = min_image(v.pos[i] - v.pos[j], box);
      const double rs = cloud_radius(v.mass[i], pi_sigma) + cloud_radius(v.mass[j], pi_sigma);
      if (!clouds_collide(x, v.vel[i] - v.vel[j], rs)) continue;
      if (out[i] == 0 || closer_partner(norm2(x), v.id[j], best, out[i])) {
        out[i] = v.id[j];
        best = norm2(x);
      }
    }
  }
  return out;
}

std::vector<uint64_t> partner_ids(const ParticleStore& s, const CpuCloudScratch& sc) {
  std::vector<uint64_t> out(sc.partner.size(), 0);
  for (std::size_t k = 0; k < out.size(); ++k)
    if (sc.partner[k] != kNoPartner) out[k] = s.id[std::size_t(sc.partner[k])];
  return out;
}

}  // namespace

TEST_CASE("the cloud grid finds the partner that a brute-force search over all pairs finds",
          "[multiphase][collision]") {
  // Open box (and shifted to negative coordinates), periodic boxes of 1, 2 and many cells.
  struct Case {
    bool periodic;
    double L;
  };
  for (const Case c : {Case{false, 40.0}, Case{true, 40.0}, Case{true, 5.0}, Case{true, 7.0}}) {
    ParticleStore s = random_clouds(400, c.L, !c.periodic);
    Box box;
    box.periodic = c.periodic;
    box.size = {c.L, c.L, c.L};
    const std::vector<uint64_t> expect = brute_force_partners(s, box, 1.0);
    CpuCloudScratch scratch;
    const ParticleStore before = s;
    collide_all(s, box, params(1.0, 0.7), scratch);
    const std::vector<uint64_t> got = partner_ids(before, scratch);
    CHECK(got == expect);
    CHECK(std::count(got.begin(), got.end(), 0u) < long(got.size()));  // some clouds have partners
  }
}

TEST_CASE("cloud pairing is deterministic: a shuffled store pairs the same clouds, bit for bit",
          "[multiphase][collision]") {
  Box box;
  box.periodic = true;
  box.size = {30, 30, 30};
  ParticleStore a = random_clouds(2000, 30.0, false);
  ParticleStore b = a;
  std::vector<std::size_t> perm(b.size());
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t k = perm.size() - 1; k > 0; --k)  // Fisher-Yates with counter-based draws
    std::swap(perm[k], perm[std::size_t(random_uniform(k, 5, kStreamSetup) * double(k + 1))]);
  b.permute(perm);
  CpuCloudScratch sa, sb;
  const ParticleStore a0 = a, b0 = b;
  const CloudCollisionStats ra = collide_all(a, box, params(0.05, 0.7), sa);
  const CloudCollisionStats rb = collide_all(b, box, params(0.05, 0.7), sb);
  REQUIRE(ra.collisions > 100);  // the test means something: many pairs,
  REQUIRE(ra.mergers > 10);      // of both outcomes
  REQUIRE(ra.mergers < ra.collisions);
  CHECK(ra.collisions == rb.collisions);
  CHECK(ra.mergers == rb.mergers);
  CHECK(ra.radiated == Approx(rb.radiated).epsilon(1e-13));  // summed in store order
  // Same partner and same state for every id.
  const std::vector<uint64_t> pa = partner_ids(a0, sa), pb = partner_ids(b0, sb);
  std::vector<std::size_t> where(a.size() + 1);
  for (std::size_t k = 0; k < b.size(); ++k) where[b.id[k]] = k;
  long mismatches = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t k = where[a.id[i]];
    mismatches += pa[i] != pb[k] || a.type[i] != b.type[k] || a.mass[i] != b.mass[k] ||
                  a.vel[i].x != b.vel[k].x || a.vel[i].y != b.vel[k].y ||
                  a.vel[i].z != b.vel[k].z || a.pos[i].x != b.pos[k].x || a.z_fe[i] != b.z_fe[k];
  }
  CHECK(mismatches == 0);
  // At most one collision per cloud: a collision is a mutual choice (a0 holds id k + 1 at k).
  long in_pairs = 0;
  for (std::size_t i = 0; i < a0.size(); ++i) in_pairs += pa[i] != 0 && pa[pa[i] - 1] == a0.id[i];
  CHECK(in_pairs == 2 * ra.collisions);
}
