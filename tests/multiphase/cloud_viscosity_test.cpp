// Scheme A, viscosity among the clouds: the k-nearest search against brute force, and the
// properties of the pair viscosity (PHYSICS.md section 5): momentum conserved, energy only
// dissipated, no force on an expanding flow, Galilean invariance, the dispersion floor.
#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "multiphase/sticky_clouds.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

namespace {

const CloudViscosityParams kParams{1.0, 2.0, 0.5, 16};

// n clouds of masses 1..3 in [0, L)^3 with random velocities of amplitude v.
ParticleStore clouds(std::size_t n, double L, double v) {
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto u = [&](uint32_t k) { return random_uniform(i + 1, 41, kStreamSetup, k); };
    s.id[i] = i + 1;
    s.type[i] = kCloud;
    s.mass[i] = 1.0 + 2.0 * u(0);
    s.pos[i] = {L * u(1), L * u(2), L * u(3)};
    s.vel[i] = s.vel0[i] = {v * (u(4) - 0.5), v * (u(5) - 0.5), v * (u(6) - 0.5)};
    s.acc[i] = {0, 0, 0};
    s.ti_begin[i] = 0;
    s.ti_end[i] = kTicks;
  }
  return s;
}

Box periodic_box(double L) {
  Box b;
  b.periodic = true;
  b.size = {L, L, L};
  return b;
}

double viscosity_step(ParticleStore& s, const Box& box, CpuCloudViscosityScratch& sc,
                      const CloudViscosityParams& p = kParams) {
  // dt = 0.01: kicks small against the velocities (|Delta v|/|v| ~ 1e-2), inside the explicit
  // kick's stability range.
  return cloud_viscosity(s.view(), ActiveSet{}, box, p, 0, s.size(), 0.01 / double(kTicks), sc);
}

}  // namespace

TEST_CASE("cloud smoothing lengths: 2h is the distance of the k-th nearest cloud",
          "[multiphase][viscosity]") {
  for (const bool periodic : {false, true}) {
    ParticleStore s = clouds(600, 10.0, 1.0);
    const Box box = periodic ? periodic_box(10.0) : Box{};
    CpuCloudViscosityScratch sc;
    viscosity_step(s, box, sc);
    long wrong = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::vector<double> r2;
      for (std::size_t j = 0; j < s.size(); ++j)
        if (j != i) r2.push_back(norm2(min_image(s.pos[i] - s.pos[j], box)));
      std::nth_element(r2.begin(), r2.begin() + (kParams.k_ngb - 1), r2.end());
      wrong += sc.h[i] != 0.5 * std::sqrt(r2[std::size_t(kParams.k_ngb - 1)]);
      wrong += sc.n_nbr[i] != kParams.k_ngb;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("cloud viscosity conserves momentum and only dissipates energy",
          "[multiphase][viscosity]") {
  ParticleStore s = clouds(2000, 20.0, 2.0);
  const ParticleStore before = s;
  CpuCloudViscosityScratch sc;
  const double dissipated = viscosity_step(s, periodic_box(20.0), sc);
  Vec3d p{0, 0, 0}, p0{0, 0, 0}, p1{0, 0, 0};
  double scale = 0, power = 0, ek0 = 0, ek1 = 0;
  long pushed = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    p += s.mass[i] * sc.acc[i];
    scale += s.mass[i] * norm(sc.acc[i]);
    power += s.mass[i] * dot(before.vel[i], sc.acc[i]);
    pushed += norm2(sc.acc[i]) > 0;
    p0 += s.mass[i] * before.vel[i];
    p1 += s.mass[i] * s.vel[i];
    ek0 += 0.5 * s.mass[i] * norm2(before.vel[i]);
    ek1 += 0.5 * s.mass[i] * norm2(s.vel[i]);
    // v0 (= v before) got the same kick.
    CHECK(norm2(s.vel0[i] - s.vel[i]) == 0.0);
  }
  REQUIRE(pushed > 1900);  // nearly every cloud feels the viscosity
  // Equal and opposite pair forces: the sum cancels to round-off of the ~16 terms per cloud.
  CHECK(norm(p) <= 1e-14 * scale);
  CHECK(norm(p1 - p0) <= 1e-14 * scale);
  // sum m v.a = -1/2 sum_ij m_i m_j Pi_ij v_ij.grad W_ij < 0, and the account is exactly the
  // kinetic energy the kicks took out.
  CHECK(power < 0);
  CHECK(dissipated > 0);
  CHECK(std::fabs(ek0 - ek1 - dissipated) <= 1e-13 * ek0);
}

TEST_CASE("cloud viscosity: no force on an expanding flow, Galilean invariant, dispersion floor",
          "[multiphase][viscosity]") {
  SECTION("a Hubble flow v = H x: every pair recedes") {
    ParticleStore s = clouds(500, 10.0, 0.0);
    for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] = 0.3 * s.pos[i];
    CpuCloudViscosityScratch sc;
    CHECK(viscosity_step(s, Box{}, sc) == 0.0);
    for (std::size_t i = 0; i < s.size(); ++i) CHECK(norm2(sc.acc[i]) == 0.0);
  }
  SECTION("a uniform velocity added to all clouds changes no acceleration") {
    ParticleStore a = clouds(500, 10.0, 1.0), b = a;
    for (std::size_t i = 0; i < b.size(); ++i) b.vel[i] += Vec3d{3.0, -1.0, 2.0};
    CpuCloudViscosityScratch sa, sb;
    viscosity_step(a, periodic_box(10.0), sa);
    viscosity_step(b, periodic_box(10.0), sb);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, norm(sa.acc[i] - sb.acc[i]));
      scale = std::max(scale, norm(sa.acc[i]));
    }
    CHECK(worst <= 1e-12 * scale);  // v_ij is formed from velocities ~3x larger: a few ulp
  }
  SECTION("clouds with equal velocities have sigma = 0: the signal speed is the floor") {
    ParticleStore s = clouds(300, 10.0, 0.0);
    CpuCloudViscosityScratch sc;
    viscosity_step(s, Box{}, sc);
    for (double c : sc.c) CHECK(c == kParams.sigma_c);
    // With random velocities the dispersion exceeds a small floor somewhere.
    ParticleStore r = clouds(300, 10.0, 4.0);
    CloudViscosityParams low = kParams;
    low.sigma_c = 0.01;
    viscosity_step(r, Box{}, sc, low);
    CHECK(*std::max_element(sc.c.begin(), sc.c.end()) > 0.5);
  }
}

TEST_CASE("cloud viscosity records the signal-speed criterion C h_i / (c_i + max_j |v_ij|)",
          "[multiphase][viscosity][timestep]") {
  for (const bool periodic : {false, true}) {
    ParticleStore s = clouds(600, 10.0, 1.0);
    const ParticleStore before = s;
    const Box box = periodic ? periodic_box(10.0) : Box{};
    CloudViscosityParams p = kParams;
    p.courant = 0.1;
    CpuCloudViscosityScratch sc;
    viscosity_step(s, box, sc, p);
    // Brute force over all pairs with r_ij < 2 min(h_i, h_j) (the pairs that interact), with the
    // velocities before the kicks; h and c are the driver's (checked against brute force above).
    double worst = 0.0, shortest = 1e300;
    for (std::size_t i = 0; i < s.size(); ++i) {
      double v_max = 0.0;
      for (std::size_t j = 0; j < s.size(); ++j) {
        if (j == i) continue;
        const double r2 = norm2(min_image(before.pos[i] - before.pos[j], box));
        const double h_min = std::min(sc.h[i], sc.h[j]);
        if (r2 < 4.0 * h_min * h_min) v_max = std::max(v_max, norm(before.vel[i] - before.vel[j]));
      }
      const double expect = (sc.c[i] + v_max) / (p.courant * sc.h[i]);
      REQUIRE(s.cloud_step_rate[i] > 0.0);
      worst = std::max(worst, std::fabs(s.cloud_step_rate[i] / expect - 1.0));
      shortest = std::min(shortest, 1.0 / s.cloud_step_rate[i]);
    }
    INFO("periodic " << periodic << ": shortest step " << shortest);
    CHECK(worst <= 1e-14);
    // Off: nothing recorded.
    ParticleStore off = clouds(600, 10.0, 1.0);
    viscosity_step(off, box, sc);
    double any = 0.0;
    for (std::size_t i = 0; i < off.size(); ++i) any = std::max(any, off.cloud_step_rate[i]);
    CHECK(any == 0.0);
  }
}
