// Sink-sink merging (sink_merge_kern.hpp through the OpenMP driver sink_merge_step of sinks.cpp):
// a bound pair inside the merging radius merges conserving mass, momentum and angular momentum
// (orbital + spin) to round-off, the lower id survives; an unbound pair and a bound pair outside
// the radius do not merge; pairing is mutual-nearest and does not depend on the store order;
// inactive sinks wait (block steps).
#include <algorithm>
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "sinks/sink_merge_csv.hpp"
#include "sinks/sink_test_support.hpp"
#include "sinks/sinks.hpp"

using namespace mpsph;

namespace {

SinkMergeParams params() {
  SinkMergeParams p{};
  p.r_merge = 0.1;
  p.G = 1.0;
  p.eps_sink = 1e-3;
  p.kernel = SofteningKernel::Plummer;
  return p;
}

struct SinkInit {
  uint64_t id;
  double m;
  Vec3d x, v, spin;
};

ParticleStore sinks_store(const std::vector<SinkInit>& init) {
  ParticleStore s;
  s.resize(init.size());
  for (std::size_t i = 0; i < init.size(); ++i) {
    s.type[i] = kSink;
    s.id[i] = init[i].id;
    s.mass[i] = init[i].m;
    s.pos[i] = init[i].x;
    s.vel[i] = init[i].v;
    s.spin[i] = init[i].spin;
    s.accreted_mass[i] = 0.1 * init[i].m;
  }
  return s;
}

ParticleView view(ParticleStore& s) {
  ParticleView v = s.view();
  v.n_gas = 0;
  return v;
}

std::size_t index_of(const ParticleStore& s, uint64_t id) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.id[i] == id) return i;
  FAIL("no particle with id " << id);
  return 0;
}

// Unit masses at r = 0.05 (G = 1, eps 1e-3 Plummer): E_pair = 1/4 |w|^2 - 1/sqrt(r^2 + eps^2),
// bound for |w|^2 < 79.98: |w| = 8.9 is bound, 9.0 is not.
const double kBoundSpeed = 8.9, kUnboundSpeed = 9.0;

}  // namespace

TEST_CASE("sink merging: the pair energy and the merging radius decide", "[sinks]") {
  const SinkMergeParams mp = params();
  for (double w : {kBoundSpeed, kUnboundSpeed}) {
    ParticleStore s = sinks_store(
        {{7, 1.0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {3, 1.0, {0.05, 0, 0}, {0, w, 0}, {0, 0, 0}}});
    const double e = sink_pair_energy(view(s), 0, 1, Box{}, mp);
    const double expect = 0.25 * w * w - 1.0 / std::sqrt(0.05 * 0.05 + 1e-6);
    if (expect < 0.0)
      CHECK(e == Approx(expect).epsilon(1e-14));
    else
      CHECK(e == HUGE_VAL);
  }
  // Bound (at rest) but outside r_merge = 0.1.
  ParticleStore far =
      sinks_store({{1, 1.0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {2, 1.0, {0.1, 0, 0}, {}, {}}});
  CHECK(sink_pair_energy(view(far), 0, 1, Box{}, mp) == HUGE_VAL);
  CHECK(sink_merge_step(view(far), ActiveSet{}, Box{}, mp).empty());
  // Merging off.
  SinkMergeParams off = mp;
  off.r_merge = 0.0;
  ParticleStore near =
      sinks_store({{1, 1.0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {2, 1.0, {0.01, 0, 0}, {}, {}}});
  CHECK(sink_merge_step(view(near), ActiveSet{}, Box{}, off).empty());
  CHECK(near.type[1] == kSink);
}

TEST_CASE("sink merging conserves mass, momentum and angular momentum (orbital + spin)",
          "[sinks]") {
  // Four pairs far apart (1 unit): bound inside r_merge (merges), unbound inside r_merge, bound
  // outside r_merge, and a second bound pair with unequal masses and spins (merges).
  const std::vector<SinkInit> init = {
      {11, 1.0, {0.3, 0.2, 0.1}, {0.1, -0.2, 0.3}, {0.01, 0.0, 0.02}},
      {4, 1.0, {0.34, 0.23, 0.1}, {0.1 + 5.0, -0.2 + 6.0, 0.3 - 1.0}, {0.0, -0.03, 0.0}},
      {20, 1.0, {1.3, 0.2, 0.1}, {0, 0, 0}, {0, 0, 0}},
      {21, 1.0, {1.35, 0.2, 0.1}, {0, kUnboundSpeed, 0}, {0, 0, 0}},
      {30, 1.0, {2.3, 0.2, 0.1}, {0, 0, 0}, {0, 0, 0}},
      {31, 1.0, {2.42, 0.2, 0.1}, {0, 0, 0}, {0, 0, 0}},
      {41, 0.3, {-1.0, 0.5, -0.7}, {-0.4, 0.7, 0.2}, {0.0, 0.004, -0.001}},
      {40, 2.7, {-1.02, 0.53, -0.66}, {0.5, -0.3, 0.9}, {0.002, 0.0, 0.003}},
  };
  ParticleStore s = sinks_store(init);
  const ParticleStore before = s;
  const SinkMergeParams mp = params();
  const std::vector<SinkMergeRecord> rec = sink_merge_step(view(s), ActiveSet{}, Box{}, mp);
  REQUIRE(rec.size() == 2);
  CHECK(rec[0].id_kept == 4);  // by the survivor's id
  CHECK(rec[0].id_merged == 11);
  CHECK(rec[1].id_kept == 40);
  CHECK(rec[1].id_merged == 41);
  CHECK(rec[0].energy < 0.0);
  CHECK(rec[0].separation == Approx(0.05).epsilon(1e-12));
  CHECK(rec[1].mass_kept == 2.7);
  CHECK(rec[1].mass_merged == 0.3);
  // Survivors (lower ids) and the removed sinks.
  for (uint64_t gone : {11, 41}) {
    const std::size_t j = index_of(s, gone);
    CHECK(s.type[j] == kRemoved);
    CHECK(s.mass[j] == 0.0);
    CHECK(norm(s.spin[j]) == 0.0);
  }
  for (uint64_t stay : {4, 20, 21, 30, 31, 40}) CHECK(s.type[index_of(s, stay)] == kSink);
  for (uint64_t same : {20, 21, 30, 31}) {
    const std::size_t i = index_of(s, same);
    CHECK(s.mass[i] == before.mass[i]);
    CHECK(s.pos[i].x == before.pos[i].x);
  }
  // The survivor: the pair's mass, centre of mass and its velocity; the accreted mass grows by the
  // whole merged sink.
  {
    const std::size_t a = index_of(before, 40), b = index_of(before, 41), k = index_of(s, 40);
    const double m = before.mass[a] + before.mass[b];
    CHECK(s.mass[k] == m);
    const Vec3d x = (1.0 / m) * (before.mass[a] * before.pos[a] + before.mass[b] * before.pos[b]);
    const Vec3d v = (1.0 / m) * (before.mass[a] * before.vel[a] + before.mass[b] * before.vel[b]);
    CHECK(norm(s.pos[k] - x) <= 1e-14 * norm(x));  // a few ulp
    CHECK(norm(s.vel[k] - v) <= 1e-15 * norm(v));
    CHECK(s.accreted_mass[k] == Approx(before.accreted_mass[a] + before.mass[b]).epsilon(1e-15));
    // Spin: both spins plus the orbital angular momentum mu d x w about the centre of mass.
    const double mu = before.mass[a] * before.mass[b] / m;
    const Vec3d l_orb = mu * cross(before.pos[b] - before.pos[a], before.vel[b] - before.vel[a]);
    const Vec3d spin = before.spin[a] + before.spin[b] + l_orb;
    CHECK(norm(s.spin[k] - spin) <= 1e-12 * norm(spin));
  }
  // Totals to round-off (the budget of merge_into_sink closes with the rounded x and v).
  const test::SinkTotals t0 = test::sink_totals(before), t1 = test::sink_totals(s);
  CHECK(std::fabs(t1.mass - t0.mass) <= 1e-12 * t0.mass);
  CHECK(norm(t1.p - t0.p) <= 1e-12 * t0.pabs);
  CHECK(norm(t1.l - t0.l) <= 1e-12 * t0.labs);
}

TEST_CASE("sink merging: mutual-nearest pairs, the same in any store order", "[sinks]") {
  // A chain at rest: 1 -- 2 -- 3 with 2 nearer to 3; all bound pairwise and inside r_merge. 2 and
  // 3 choose each other, 1 chooses 2 (not mutual): one merge (2 keeps 3); the next call merges 1
  // with the survivor 2.
  const std::vector<SinkInit> chain = {{1, 1.0, {0.0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
                                       {2, 1.0, {0.05, 0, 0}, {0, 0, 0}, {0, 0, 0}},
                                       {3, 1.0, {0.09, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
  ParticleStore s = sinks_store(chain);
  const SinkMergeParams mp = params();
  std::vector<SinkMergeRecord> r = sink_merge_step(view(s), ActiveSet{}, Box{}, mp);
  REQUIRE(r.size() == 1);
  CHECK(r[0].id_kept == 2);
  CHECK(r[0].id_merged == 3);
  CHECK(s.type[0] == kSink);
  r = sink_merge_step(view(s), ActiveSet{}, Box{}, mp);
  REQUIRE(r.size() == 1);
  CHECK(r[0].id_kept == 1);
  CHECK(r[0].id_merged == 2);
  CHECK(s.mass[0] == 3.0);

  // Twelve sinks in a cluster, in two store orders: the same merges, bit for bit.
  std::vector<SinkInit> cl;
  for (int k = 0; k < 12; ++k) {
    const double a = 0.7 * k;
    cl.push_back({uint64_t(100 + 7 * ((k * 5) % 12)),
                  0.5 + 0.1 * k,
                  {0.06 * std::cos(a) + 0.004 * k, 0.06 * std::sin(a), 0.01 * (k % 3)},
                  {0.3 * std::sin(a), -0.3 * std::cos(a), 0.05 * k},
                  {0.0, 0.001 * k, 0.0}});
  }
  std::vector<SinkInit> rev(cl.rbegin(), cl.rend());
  ParticleStore a = sinks_store(cl), b = sinks_store(rev);
  const std::vector<SinkMergeRecord> ra = sink_merge_step(view(a), ActiveSet{}, Box{}, mp);
  const std::vector<SinkMergeRecord> rb = sink_merge_step(view(b), ActiveSet{}, Box{}, mp);
  REQUIRE(ra.size() >= 2);
  REQUIRE(ra.size() == rb.size());
  for (std::size_t k = 0; k < ra.size(); ++k) {
    CHECK(ra[k].id_kept == rb[k].id_kept);
    CHECK(ra[k].id_merged == rb[k].id_merged);
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t j = index_of(b, a.id[i]);
    CHECK(a.type[i] == b.type[j]);
    CHECK(a.mass[i] == b.mass[j]);
    CHECK(a.pos[i].x == b.pos[j].x);
    CHECK(a.vel[i].y == b.vel[j].y);
    CHECK(a.spin[i].z == b.spin[j].z);
  }
}

TEST_CASE("sink merging waits for inactive sinks (block steps)", "[sinks]") {
  ParticleStore s = sinks_store(
      {{1, 1.0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {2, 1.0, {0.05, 0, 0}, {0, 0, 0}, {0, 0, 0}}});
  s.ti_end[0] = 4;
  s.ti_end[1] = 8;
  std::vector<uint32_t> idx{0};
  ActiveSet a;
  a.index = idx.data();
  a.n = 1;
  a.n_gas = 0;
  a.tick = 4;
  CHECK(sink_merge_step(view(s), a, Box{}, params()).empty());
  s.ti_end[1] = 4;
  idx = {0, 1};
  a.index = idx.data();
  a.n = 2;
  CHECK(sink_merge_step(view(s), a, Box{}, params()).size() == 1);
}

TEST_CASE("sink_merges.csv: unit comments, the column line, the log line", "[sinks][io]") {
  const std::string h = sink_merges_csv_header(UnitSystem::nbody_units());
  CHECK(h.find("# units:") != std::string::npos);
  CHECK(h.find("\ntime,id_kept,id_merged,mass_kept,mass_merged,separation,energy\n") !=
        std::string::npos);
  const SinkMergeEvent e{0.5, {3, 9, 1.25, 0.5, 0.01, -2.0}};
  const std::string line = sink_merge_log_line(e);
  CHECK(line.find("sink 9 (mass 0.5) merged into sink 3 (mass 1.25)") != std::string::npos);
  CHECK(line.find("t = 0.5") == 0);
}
