// Sink creation criteria (each one failing alone blocks creation) and accretion (mass, linear and
// angular momentum conserved, gas goes to the sink it is most bound to): sink_kern.hpp through
// the OpenMP driver sinks.cpp.
#include <cmath>
#include <vector>

#include "catch.hpp"
#include "core/rng.hpp"
#include "sinks/sink_test_support.hpp"
#include "sinks/sinks.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;

namespace {

SinkKernParams params() {
  return test::sink_kern_params(1.0, 1.0);
}

// A cold, still group: gas on a lattice of spacing 0.2 within r < 0.8 of the candidate (index
// 0, at the origin), its potential rising outwards; one gas particle outside h_acc with a lower
// potential (not a neighbour: it must not matter) and one sink outside r_crit.
struct Group {
  ParticleStore s;
  std::vector<uint32_t> members;  // the gas within h_acc, candidate first
  std::size_t far_gas = 0, sink = 0;

  explicit Group() {
    std::vector<Vec3d> x{{0, 0, 0}};
    for (int a = -4; a <= 4; ++a)
      for (int b = -4; b <= 4; ++b)
        for (int c = -4; c <= 4; ++c) {
          const Vec3d p{0.2 * a, 0.2 * b, 0.2 * c};
          if ((a || b || c) && norm(p) < 0.8) x.push_back(p);
        }
    const std::size_t n_in = x.size();
    x.push_back({1.5, 0, 0});  // far gas
    x.push_back({0, 1.5, 0});  // sink
    s.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      s.pos[i] = x[i];
      s.id[i] = 100 + i;
      s.mass[i] = 1.0 / double(n_in);
      s.type[i] = kGas;
      s.rho[i] = 0.5f;
      s.pot[i] = -1.0 + 0.1 * norm2(x[i]);
      if (i < n_in) members.push_back(uint32_t(i));
    }
    s.rho[0] = 10.0f;
    s.divv[0] = -1.0f;
    far_gas = n_in;
    s.pot[far_gas] = -2.0;
    sink = n_in + 1;
    s.type[sink] = kSink;
    set_alpha(0.3);
  }
  ParticleView view() {
    ParticleView v = s.view();
    v.n_gas = sink;
    return v;
  }
  GroupEnergies energies() {
    return group_energies(view(), members.data(), int(members.size()), 0, Box{}, params());
  }
  // Uniform u with E_th = alpha |E_grav|.
  void set_alpha(double alpha) {
    for (std::size_t i = 0; i < s.size(); ++i) s.u[i] = 0.0;
    const GroupEnergies e = energies();
    for (uint32_t i : members) s.u[i] = alpha * std::fabs(e.grav);  // sum m = 1
  }
  // v = k r (radial) or v = k z x r (rigid rotation about z), scaled to E_kin = f |E_grav|.
  void set_motion(bool rotation, double f) {
    for (uint32_t i : members) s.vel[i] = rotation ? Vec3d{-s.pos[i].y, s.pos[i].x, 0.0} : s.pos[i];
    const GroupEnergies e = energies();
    const double k = std::sqrt(f * std::fabs(e.grav) / e.kinetic);
    for (uint32_t i : members) s.vel[i] = k * s.vel[i];
  }
  uint32_t failures() {
    const std::vector<uint32_t> sinks{uint32_t(sink)};
    return sink_creation_failures(view(), 0, Box{}, params(), sinks);
  }
};

}  // namespace

TEST_CASE("sink creation: a cold bound still group at a potential minimum forms a sink",
          "[sinks]") {
  Group g;
  const GroupEnergies e = g.energies();
  CHECK(e.grav < 0.0);
  CHECK(e.thermal == Approx(0.3 * std::fabs(e.grav)).epsilon(1e-12));
  CHECK(e.kinetic == 0.0);
  CHECK(g.failures() == 0u);
  ParticleView v = g.view();
  const SinkStepResult r = sink_step(v, ActiveSet{}, Box{}, params(), 2.5);
  CHECK(r.created == 1);
  CHECK(g.s.type[0] == kSink);
  CHECK(g.s.formation_time[0] == 2.5);
  // A still, cold group: every member is bound to the new sink and inside h_acc, except the
  // candidate itself; the gas outside h_acc stays.
  CHECK(r.accreted == g.members.size() - 1);
  CHECK(g.s.mass[0] == Approx(1.0).epsilon(1e-14));
  CHECK(g.s.type[g.far_gas] == kGas);
}

TEST_CASE("sink creation: each criterion failing alone blocks creation", "[sinks]") {
  SECTION("density") {
    Group g;
    g.s.rho[0] = 0.9f;
    CHECK(g.failures() == kSinkDensity);
  }
  SECTION("converging flow") {
    Group g;
    g.s.divv[0] = 0.01f;
    CHECK(g.failures() == kSinkConverging);
  }
  SECTION("potential minimum") {
    Group g;
    g.s.pot[1] = g.s.pot[0] - 1e-6;
    CHECK(g.failures() == kSinkPotential);
  }
  SECTION("bound: radial expansion, no rotation, alpha below 1/2") {
    Group g;
    g.set_motion(false, 0.8);  // E_kin + E_th = 1.1 |E_grav|
    const GroupEnergies e = g.energies();
    CHECK(e.rot < 1e-12 * e.kinetic);
    CHECK(e.kinetic + e.thermal + e.grav > 0.0);
    CHECK(g.failures() == kSinkBound);
  }
  SECTION("thermal support: alpha = 0.7") {
    Group g;
    g.set_alpha(0.7);
    CHECK(g.failures() == kSinkThermal);
  }
  SECTION("rotational support: alpha = 0.49, rigid rotation with E_kin = 0.5 |E_grav|") {
    Group g;
    g.set_alpha(0.49);
    g.set_motion(true, 0.5);
    const GroupEnergies e = g.energies();
    CHECK(e.kinetic + e.thermal + e.grav < 0.0);           // still bound ...
    CHECK((e.thermal + e.rot) / std::fabs(e.grav) > 1.0);  // ... but alpha + beta > 1
    CHECK(g.failures() == kSinkRotation);
  }
  SECTION("a sink within r_crit") {
    Group g;
    g.s.pos[g.sink] = {0, 0.9, 0};
    CHECK(g.failures() == kSinkIsolated);
  }
  SECTION("sink_step forms no sink when one criterion fails") {
    Group g;
    g.s.divv[0] = 0.01f;
    const SinkStepResult r = sink_step(g.view(), ActiveSet{}, Box{}, params(), 0.0);
    CHECK(r.created == 0);
    CHECK(r.accreted == 0);
    CHECK(g.s.type[0] == kGas);
  }
}

TEST_CASE("sink creation: the step's short-circuit order gives the verdict of every criterion",
          "[sinks]") {
  // sink_step tests density, flow and isolation first, then sink_group_forms (potential minimum
  // before the O(k^2) energies): for each criterion failing alone it must form no sink, and form
  // one when none fails, exactly as sink_creation_failures(...) == 0 says.
  using Change = void (*)(Group&);
  const std::vector<Change> changes{
      [](Group&) {},
      [](Group& g) { g.s.pot[1] = g.s.pot[0] - 1e-6; },
      [](Group& g) { g.set_motion(false, 0.8); },
      [](Group& g) { g.set_alpha(0.7); },
      [](Group& g) {
        g.set_alpha(0.49);
        g.set_motion(true, 0.5);
      },
      [](Group& g) {
        g.s.pos[g.sink] = {0, 0.9, 0};
      },
  };
  for (std::size_t c = 0; c < changes.size(); ++c) {
    Group g;
    changes[c](g);
    const bool forms = g.failures() == 0u;
    CHECK(forms == (c == 0));
    CHECK(sink_group_forms(g.view(), 0, g.members.data(), int(g.members.size()), Box{},
                           params()) == (forms || c == 5));  // isolation is not a group test
    const SinkStepResult r = sink_step(g.view(), ActiveSet{}, Box{}, params(), 0.0);
    CHECK(r.created == (forms ? 1u : 0u));
  }
}

TEST_CASE("sink creation: of two candidates in one group the lower potential wins", "[sinks]") {
  Group g;
  // A second candidate 0.2 away with the same potential: the tie goes to the lower id (index 0).
  g.s.rho[1] = 10.0f;
  g.s.divv[1] = -1.0f;
  g.s.pot[1] = g.s.pot[0];
  const SinkStepResult r = sink_step(g.view(), ActiveSet{}, Box{}, params(), 0.0);
  CHECK(r.created == 1);
  CHECK(g.s.type[0] == kSink);
  CHECK(g.s.type[1] == kRemoved);  // accreted by the new sink
}

namespace {

// Two sinks and 400 gas particles around them, some bound, some not.
ParticleStore accretion_store() {
  ParticleStore s;
  const std::size_t n_gas = 400;
  s.resize(n_gas + 2);
  for (std::size_t i = 0; i < n_gas; ++i) {
    auto r = [&](uint32_t k) { return random_uniform(i, 0, kStreamSetup, k); };
    s.id[i] = 10 + i;
    s.type[i] = kGas;
    s.pos[i] = {2.4 * r(0) - 1.2, 2.4 * r(1) - 1.2, 2.4 * r(2) - 1.2};
    s.vel[i] = {r(3) - 0.5, r(4) - 0.5, r(5) - 0.5};
    if (i % 7 == 0) s.vel[i] = 20.0 * s.vel[i];  // unbound
    s.mass[i] = 0.001 * (1.0 + r(6));
    s.u[i] = 0.05 * r(7);
    s.acc[i] = {r(8), -r(9), 0.3};
    s.pot[i] = 0.0;
  }
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t i = n_gas + k;
    s.id[i] = 5 - k;
    s.type[i] = kSink;
    s.mass[i] = 1.0 + 0.5 * double(k);
    s.pos[i] = {k ? 0.3 : -0.3, 0.05, 0.0};
    s.vel[i] = {0.1, k ? -0.2 : 0.2, 0.05};
    s.spin[i] = {0.0, 0.0, 0.01};
  }
  return s;
}

}  // namespace

TEST_CASE("sink accretion conserves mass, momentum and angular momentum (orbital + spin)",
          "[sinks]") {
  ParticleStore s = accretion_store();
  const ParticleStore before = s;
  SinkKernParams sp = params();
  sp.rho_sink = 1e30;  // accretion only
  sp.h_acc = 0.5;
  ParticleView v = s.view();
  v.n_gas = 400;
  const SinkStepResult r = sink_step(v, ActiveSet{}, Box{}, sp, 0.0);
  CHECK(r.created == 0);
  REQUIRE(r.accreted >= 10);
  const test::SinkTotals a = test::sink_totals(before), b = test::sink_totals(s);
  // Round-off: a few hundred merges, each exact to a few ulp of the largest term.
  CHECK(std::fabs(b.mass - a.mass) <= 1e-12 * a.mass);
  CHECK(norm(b.p - a.p) <= 1e-12 * a.pabs);
  CHECK(norm(b.l - a.l) <= 1e-12 * a.labs);
  // Every accreted particle was inside h_acc of a sink, bound to it, and went to the sink it was
  // most bound to; the accreted masses add up per sink.
  ParticleStore ref = before;
  ParticleView rv = ref.view();
  rv.n_gas = 400;
  double to_sink[2] = {0, 0};
  std::size_t removed = 0;
  for (std::size_t j = 0; j < 400; ++j) {
    const double e0 = accretion_energy(rv, 400, j, Box{}, sp);
    const double e1 = accretion_energy(rv, 401, j, Box{}, sp);
    const bool bound = e0 < HUGE_VAL || e1 < HUGE_VAL;
    CHECK((s.type[j] == kRemoved) == bound);
    if (s.type[j] != kRemoved) continue;
    ++removed;
    CHECK(s.mass[j] == 0.0);
    to_sink[sink_preferred(e1, ref.id[401], e0, ref.id[400]) ? 1 : 0] += ref.mass[j];
  }
  CHECK(removed == r.accreted);
  CHECK(to_sink[0] > 0.0);
  CHECK(to_sink[1] > 0.0);
  CHECK(s.accreted_mass[400] == Approx(to_sink[0]).epsilon(1e-13));
  CHECK(s.accreted_mass[401] == Approx(to_sink[1]).epsilon(1e-13));
  // The unbound (fast) particles inside h_acc stayed gas.
  std::size_t fast_inside = 0;
  for (std::size_t j = 0; j < 400; j += 7)
    if (norm(ref.pos[j] - ref.pos[400]) < sp.h_acc && s.type[j] == kGas) ++fast_inside;
  CHECK(fast_inside > 0);
}

TEST_CASE("sink accretion waits for inactive gas and sinks (block steps)", "[sinks]") {
  ParticleStore s = accretion_store();
  SinkKernParams sp = params();
  sp.rho_sink = 1e30;
  sp.h_acc = 0.5;
  // Active: the even gas particles and sink 400; ti_end == tick marks them.
  std::vector<uint32_t> idx;
  for (uint32_t j = 0; j < 400; ++j) {
    s.ti_end[j] = j % 2 ? 8 : 4;
    if (j % 2 == 0) idx.push_back(j);
  }
  s.ti_end[400] = 4;
  s.ti_end[401] = 8;
  const std::size_t n_gas_active = idx.size();
  idx.push_back(400);
  ActiveSet a;
  a.index = idx.data();
  a.n = idx.size();
  a.n_gas = n_gas_active;
  a.tick = 4;
  ParticleView v = s.view();
  v.n_gas = 400;
  const SinkStepResult r = sink_step(v, a, Box{}, sp, 0.0);
  REQUIRE(r.accreted > 0);
  for (std::size_t j = 1; j < 400; j += 2) CHECK(s.type[j] == kGas);  // inactive: untouched
  CHECK(s.accreted_mass[401] == 0.0);                                 // inactive sink
  CHECK(s.accreted_mass[400] > 0.0);
}

TEST_CASE("block steps: gas near an active sink is woken onto the sink's rung", "[sinks]") {
  ParticleStore s;
  s.resize(4);
  const int64_t now = rung_ticks(4);  // a boundary of rung 4, inside the rung-1 steps
  for (std::size_t j = 0; j < 3; ++j) {
    s.type[j] = kGas;
    s.id[j] = j + 1;
    s.mass[j] = 1.0;
    s.rung[j] = 1;
    s.ti_begin[j] = 0;
    s.ti_end[j] = rung_ticks(1);
  }
  s.pos[0] = {0.2, 0, 0};  // inside 3 h_acc = 0.3 of the sink
  s.pos[1] = {0.4, 0, 0};  // outside
  s.pos[2] = {0.1, 0, 0};  // inside, but already on a deeper rung than the sink
  s.rung[2] = 6;
  s.ti_begin[2] = now;
  s.ti_end[2] = now + rung_ticks(6);
  s.type[3] = kSink;
  s.id[3] = 9;
  s.mass[3] = 1.0;
  s.rung[3] = 4;
  s.ti_begin[3] = 0;
  s.ti_end[3] = now;
  std::vector<uint32_t> idx{3};
  ActiveSet a;
  a.index = idx.data();
  a.n = 1;
  a.n_gas = 0;
  a.tick = now;
  ParticleView v = s.view();
  v.n_gas = 3;
  CHECK(wake_near_sinks(v, a, Box{}, 0.3) == 1);
  CHECK(s.rung[0] == 4);
  CHECK(s.ti_end[0] == now + rung_ticks(4));  // the first rung-4 boundary after now
  CHECK(s.ti_begin[0] == 0);                  // keeps its base
  CHECK(s.rung[1] == 1);
  CHECK(s.ti_end[1] == rung_ticks(1));
  CHECK(s.rung[2] == 6);
  // The global scheme has nothing to wake.
  CHECK(wake_near_sinks(v, ActiveSet{}, Box{}, 0.3) == 0);
}
