// The feedback stage on the CPU (feedback.cpp over feedback_kern.hpp): the neighbour search
// against brute force, conservation of mass, momentum, O and Fe to round-off over 100 steps, the
// energy account, the [O/Fe] of the enriched gas, thread independence and the wake-up of
// receivers under block steps.
#include "feedback/feedback.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "cooling/cooling_kern.hpp"
#include "feedback/feedback_grid_kern.hpp"
#include "feedback_test_support.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;
using namespace mpsph::test;

TEST_CASE("feedback neighbours: the K nearest gas by (distance, id), as brute force finds them",
          "[feedback]") {
  for (bool periodic : {true, false}) {
    FeedbackBox b = make_feedback_box(12, 60.0, 0, 0.0, 0, 0, 0, 0);
    b.box.periodic = periodic;
    ParticleView p = b.s.view();
    // Cells of a few widths, so that rings of 0 to several cells are needed.
    for (double w : {0.7, 3.0, 11.0}) {
      const Vec3d lo{0, 0, 0}, hi{60, 60, 60};
      FeedbackGrid g = make_feedback_grid(w, lo, hi, b.box);
      std::vector<std::pair<uint64_t, uint32_t>> kv;
      for (uint32_t j = 0; j < p.n_gas; ++j) kv.push_back({feedback_key(g, p.pos[j]), j});
      std::sort(kv.begin(), kv.end());
      std::vector<uint64_t> keys;
      std::vector<uint32_t> idx;
      for (auto& e : kv) keys.push_back(e.first), idx.push_back(e.second);
      g.keys = keys.data(), g.idx = idx.data(), g.n = keys.size();
      for (int q = 0; q < 40; ++q) {
        // Stars inside and (open box) outside the gas.
        const Vec3d x{-10.0 + 80.0 * random_uniform(q, 1, kStreamSetup, 0),
                      -10.0 + 80.0 * random_uniform(q, 1, kStreamSetup, 1),
                      80.0 * random_uniform(q, 1, kStreamSetup, 2) - 10.0};
        const int K = 51;
        std::vector<double> d2(K);
        std::vector<uint32_t> jj(K);
        std::vector<uint64_t> ids(K);
        NeighbourSet s{0, K, d2.data(), jj.data(), ids.data()};
        feedback_neighbours(g, b.box, p.pos, p.id, x, s);
        std::vector<std::pair<double, uint64_t>> all;
        for (std::size_t j = 0; j < p.n_gas; ++j)
          all.push_back({norm2(min_image(p.pos[j] - x, b.box)), p.id[j]});
        std::sort(all.begin(), all.end());
        REQUIRE(s.n == K);
        for (int k = 0; k < K; ++k) {
          CHECK(s.d2[k] == all[std::size_t(k)].first);
          CHECK(s.id[k] == all[std::size_t(k)].second);
        }
      }
    }
  }
}

namespace {

struct Run {
  std::vector<double> injected;  // per step
  double synth_o = 0, synth_fe = 0;
};

// n_steps global steps of dt (code time) from time 0.
Run run_feedback(FeedbackBox& b, const SspTable& table, int n_steps, double dt, int n_ngb = 50) {
  const UnitSystem u = pc_msun_kms();
  const FeedbackKernParams kp = kern_params(table, u, n_ngb);
  Run r;
  ParticleView p = b.s.view();
  for (int k = 0; k < n_steps; ++k) {
    const double t = (k + 1) * dt;
    for (std::size_t i = b.n_gas; i < p.n; ++i) {
      const double a1 = (t - p.birth_time[i]) * kp.time_to_yr, a0 = a1 - dt * kp.time_to_yr;
      const SspRelease c1 = ssp_table_cumulative(kp.table, a1, p.birth_z[i]);
      const SspRelease c0 = ssp_table_cumulative(kp.table, std::max(a0, 0.0), p.birth_z[i]);
      r.synth_o += p.initial_mass[i] * (c1.q[kSspOxygen] - c0.q[kSspOxygen]);
      r.synth_fe += p.initial_mass[i] * (c1.q[kSspIron] - c0.q[kSspIron]);
    }
    const FeedbackStepResult res =
        apply_feedback(p, ActiveSet{}, b.box, kp, FeedbackTiming{}, t, dt / double(kTicks));
    r.injected.push_back(res.energy);
  }
  return r;
}

}  // namespace

TEST_CASE(
    "feedback conserves mass, momentum, O and Fe to round-off over 100 steps: the energy "
    "changes by the SN energy it reports",
    "[feedback]") {
  const SspTable table{SspModel{}};
  // 4096 gas particles, 6 stars: three new (SN II over the run), three 100 Myr old (SN Ia, AGB).
  FeedbackBox b = make_feedback_box(16, 160.0, 6, 100.0, 0.004, 0.001, 0.006, 0.0012);
  const Totals t0 = totals(b.s);
  const Run r = run_feedback(b, table, 100, 0.5);
  const Totals t1 = totals(b.s);
  double e_inj = 0.0;
  for (double e : r.injected) e_inj += e;
  std::printf("feedback 100 steps: SN energy %.6g code, O made %.6g Msun, Fe made %.6g Msun\n",
              e_inj, r.synth_o, r.synth_fe);
  REQUIRE(e_inj > 0.0);
  REQUIRE(r.synth_o > 0.0);
  // Round-off: ~1e-16 per operation, 100 steps of at most a few hundred updates per particle.
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-12 * t0.mass);
  CHECK(std::sqrt(norm2(t1.mom - t0.mom)) <= 1e-12 * t0.mom_scale);
  CHECK(std::fabs(t1.o - t0.o - r.synth_o) <= 1e-12 * t1.o);
  CHECK(std::fabs(t1.fe - t0.fe - r.synth_fe) <= 1e-12 * t1.fe);
  CHECK(std::fabs(t1.energy - t0.energy - e_inj) <= 1e-12 * (t0.energy + e_inj));
  // The stars lost what their populations returned: 6 x 1e4 Msun x the table's M_returned over
  // their ages [0, 48.9 Myr] (new) and [97.8, 146.7 Myr] (old).
  const UnitSystem u = pc_msun_kms();
  const double to_yr = u.time_cgs() / cgs::year;
  const SspTableView& v = table.view();
  const double ret_new = ssp_table_cumulative(v, 50.0 * to_yr, 0.01).q[kSspMassReturned];
  const double ret_old = ssp_table_cumulative(v, 150.0 * to_yr, 0.01).q[kSspMassReturned] -
                         ssp_table_cumulative(v, 100.0 * to_yr, 0.01).q[kSspMassReturned];
  double star_mass = 0.0;
  for (std::size_t i = b.n_gas; i < b.s.size(); ++i) star_mass += b.s.mass[i];
  CHECK(star_mass == Approx(3e4 * (1 - ret_new) + 3 * (0.9e4 - 1e4 * ret_old)).epsilon(1e-12));
  // SN energy: 1e51 erg per SN, 3e4 Msun x N_SN(new) + 3e4 x dN_SN(old), in code energy.
  auto nsn = [&](double a) {
    const SspRelease c = ssp_table_cumulative(v, a * to_yr, 0.01);
    return c.q[kSspNSnII] + c.q[kSspNSnIa];
  };
  const double e_expect = 1e51 / (cgs::Msun * 1e10) * 3e4 * (nsn(50.0) + nsn(150.0) - nsn(100.0));
  CHECK(e_inj == Approx(e_expect).epsilon(1e-12));
}

TEST_CASE(
    "feedback: [O/Fe] of gas enriched by one young population is high with SN II only and "
    "falls once SN Ia start",
    "[feedback]") {
  const SspTable table{SspModel{}};
  // Metal-free gas and star: every O and Fe atom in the gas was made by the population, so the
  // gas O/Fe is the table's M_O / M_Fe at the star's age.
  FeedbackBox b = make_feedback_box(10, 100.0, 1, 0.0, 0, 0, 0, 0);
  const UnitSystem u = pc_msun_kms();
  const double to_yr = u.time_cgs() / cgs::year;
  const double solar = std::log10(kSolarOToH / kSolarFeToH);
  std::vector<double> ofe;
  const double dt = 10.0;  // 9.78 Myr
  for (int k = 1; k <= 100; ++k) {
    const FeedbackKernParams kp = kern_params(table, u, 50);
    apply_feedback(b.s.view(), ActiveSet{}, b.box, kp, FeedbackTiming{}, k * dt,
                   dt / double(kTicks));
    const Totals t = totals(b.s);
    // The star keeps its (zero) metals: all O and Fe are in the gas.
    const SspRelease c = ssp_table_cumulative(table.view(), k * dt * to_yr, 0.01);
    if (c.q[kSspIron] > 0.0) {
      CHECK(t.o / t.fe == Approx(c.q[kSspOxygen] / c.q[kSspIron]).epsilon(1e-10));
      ofe.push_back(std::log10(t.o / t.fe) - solar);
    }
  }
  REQUIRE(ofe.size() > 90);
  // SN II only (ages up to 39 Myr, the 8 Msun lifetime at Z = 0.01): [O/Fe] well above solar.
  std::printf(
      "[O/Fe] of the gas: %.3f at 9.8 Myr, %.3f at 29 Myr, %.3f at 98 Myr, %.3f at "
      "978 Myr\n",
      ofe[0], ofe[2], ofe[9], ofe.back());
  CHECK(ofe[0] > 0.6);
  CHECK(ofe[2] > 0.6);
  // Then SN Ia bring iron: [O/Fe] falls steadily and ends well below its SN II value.
  for (std::size_t k = 4; k < ofe.size(); ++k) CHECK(ofe[k] < ofe[k - 1]);
  CHECK(ofe.back() < ofe[2] - 0.2);
}

TEST_CASE("feedback gives the same particles on 1 and 2 threads", "[feedback]") {
  const SspTable table{SspModel{}};
  FeedbackBox a = make_feedback_box(12, 100.0, 9, 50.0, 0.004, 0.001, 0.006, 0.0012);
  FeedbackBox b = a;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  run_feedback(a, table, 10, 2.0);
  omp_set_num_threads(2);
  run_feedback(b, table, 10, 2.0);
  omp_set_num_threads(threads);
  const ParticleView p = a.s.view(), q = b.s.view();
  for (std::size_t i = 0; i < p.n; ++i) {
    CHECK(std::memcmp(&p.mass[i], &q.mass[i], sizeof(double)) == 0);
    CHECK(std::memcmp(&p.vel[i], &q.vel[i], sizeof(Vec3d)) == 0);
    CHECK(std::memcmp(&p.u[i], &q.u[i], sizeof(double)) == 0);
    CHECK(std::memcmp(&p.z_o[i], &q.z_o[i], sizeof(double)) == 0);
  }
}

TEST_CASE(
    "feedback synchronises the heated inactive receivers at the injection, on the rung of their "
    "new C h / c",
    "[feedback]") {
  const SspTable table{SspModel{}};
  FeedbackBox b = make_feedback_box(10, 100.0, 1, 0.0, 0, 0, 0, 0);
  ParticleView p = b.s.view();
  // Block steps: a segment of 64 code time units (62.6 Myr); every gas particle on rung 0 (one
  // step over the segment), the star on rung 6, active at tick 5/8 of the segment (its step
  // [t - 1, t] at t = 40: ages 38.1 to 39.1 Myr, SN II of ~8 Msun stars).
  const double length = 64.0, tick_len = length / double(kTicks);
  const int64_t now = 5 * (kTicks / 8);
  for (std::size_t i = 0; i < p.n; ++i) {
    p.ti_begin[i] = 0;
    p.ti_end[i] = kTicks;
    p.rung[i] = 0;
    p.rung_wake[i] = 0;
  }
  const std::size_t star = b.n_gas;
  p.rung[star] = 6;
  p.ti_end[star] = now;
  p.ti_begin[star] = now - rung_ticks(6);
  std::vector<uint32_t> list = {uint32_t(star)};
  ActiveSet a;
  a.index = list.data();
  a.n = 1;
  a.n_gas = 0;
  a.tick = now;
  const std::vector<double> u_before(p.u, p.u + b.n_gas);
  const FeedbackKernParams kp = kern_params(table, pc_msun_kms(), 50);
  const FeedbackStepResult r = apply_feedback(p, a, b.box, kp, FeedbackTiming{}, 40.0, tick_len);
  REQUIRE(r.receivers == 50);
  REQUIRE(r.energy > 0.0);
  std::size_t heated = 0, woken = 0;
  for (std::size_t j = 0; j < b.n_gas; ++j) {
    if (p.u[j] == u_before[j]) {
      CHECK(p.ti_end[j] == kTicks);  // not a receiver: untouched
      continue;
    }
    ++heated;
    const double c = std::sqrt(10.0 / 9.0 * p.u[j]);
    CHECK(double(p.csound[j]) == Approx(c).epsilon(1e-6));
    const int want = rung_for_dt(0.1 * double(p.h[j]) / c, length);
    // Durier & Dalla Vecchia: the step ends at the injection and a new one starts there from the
    // state after it (base = current state), ending on the first boundary of its rung after now.
    CHECK(p.ti_begin[j] == now);
    CHECK(int(p.rung[j]) == want);
    CHECK(p.ti_end[j] == woken_end(now, kTicks, want));
    CHECK(p.u0[j] == p.u[j]);
    CHECK(p.vel0[j].x == p.vel[j].x);
    CHECK(p.pos0[j].z == p.pos[j].z);
    if (want > 0) ++woken;
  }
  CHECK(heated == 50);
  CHECK(woken == r.woken);
  CHECK(woken > 0);
}

TEST_CASE(
    "feedback keeps the forces of the particles whose mass it changes: the corrector conserves "
    "momentum to round-off",
    "[feedback]") {
  // Between the force evaluation and the corrector the stars lose their ejecta and the gas gains
  // them. The corrector gives each particle m1 v = m1 v0' + m1 (a0 + a) dt/2; with forces m a that
  // sum to zero (pairwise forces), momentum is conserved only if m1 a = m a: the accelerations of
  // every particle whose mass changed are scaled by m/m1 (keep_forces). Without the scaling the
  // error is sum dm (a0 + a) dt/2, here ~1e-4 of the momentum scale.
  const SspTable table{SspModel{}};
  FeedbackBox b = make_feedback_box(12, 60.0, 4, 0.0, 0.004, 0.001, 0.006, 0.0012);
  ParticleView p = b.s.view();
  // Accelerations of order 1e3 code units (velocity 20 / time 0.02), pairwise in sum: the
  // mass-weighted mean removed.
  auto forces = [&](Vec3d* a, uint64_t stream) {
    Vec3d sum{0, 0, 0};
    double msum = 0.0;
    for (std::size_t i = 0; i < p.n; ++i) {
      auto r = [&](int d) { return random_uniform(i, stream, kStreamSetup, d) - 0.5; };
      a[i] = 2e3 * Vec3d{r(0), r(1), r(2)};
      sum += p.mass[i] * a[i];
      msum += p.mass[i];
    }
    for (std::size_t i = 0; i < p.n; ++i) a[i] -= (1.0 / msum) * sum;
  };
  forces(p.acc, 11);
  forces(p.acc0, 12);
  const double dt = 0.5;
  auto corrected_momentum = [&](double* scale) {
    Vec3d P{0, 0, 0};
    *scale = 0.0;
    for (std::size_t i = 0; i < p.n; ++i) {
      P += p.mass[i] * (p.vel0[i] + (0.5 * dt) * (p.acc0[i] + p.acc[i]));
      *scale += p.mass[i] * (std::sqrt(norm2(p.vel0[i])) +
                             0.5 * dt * (std::sqrt(norm2(p.acc0[i])) + std::sqrt(norm2(p.acc[i]))));
    }
    return P;
  };
  double scale0 = 0.0, scale1 = 0.0;
  const Vec3d P0 = corrected_momentum(&scale0);
  const double m_star0 = p.mass[b.n_gas];
  apply_feedback(p, ActiveSet{}, b.box, kern_params(table, pc_msun_kms(), 50), FeedbackTiming{},
                 10.0, 10.0 / double(kTicks));
  const Vec3d P1 = corrected_momentum(&scale1);
  REQUIRE(p.mass[b.n_gas] < m_star0);  // the stars did lose mass
  const double err = std::sqrt(norm2(P1 - P0)) / scale0;
  std::printf("feedback with forces: corrected momentum changes by %.2e of its scale\n", err);
  CHECK(err < 1e-14);
}
