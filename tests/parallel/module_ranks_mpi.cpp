// Physics module stages across ranks through ModuleRanks (core/module_ranks.hpp,
// parallel/module_ranks_mpi.hpp), run by mpiexec on 1, 2 and 3 ranks: the sink module's stages on
// particles spread over the ranks against the same stages on one process holding them all.
//
// Every rank evolves the same single-process run (the CPU backend, block time steps): the
// isothermal sphere of the sink tests with two sinks that fall together and merge (the merge
// run of tests/sinks/sink_merge_test_support.hpp) and a gas core that then forms sinks of its
// own. At each sink stage (creation, accretion, merging and wake-up after the corrector; the
// sinks' steps at the time-step stage) a copy of the store is cut into consecutive blocks, one per
// rank, and the stage runs across the ranks on the blocks while the one-process stage runs on the
// store; then every field of every particle of each block must equal the one-process result bit
// for bit. Consecutive blocks of one process's store order put the work store of rank 0 in that
// order too, so every sum runs in the same order (module_ranks.hpp).
#include "parallel/module_ranks_mpi.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/module_ranks.hpp"
#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "parallel/mpi_comm.hpp"
#include "run/module_registry.hpp"
#include "run/program_schema.hpp"
#include "run/step_backend.hpp"
#include "setups/initial_conditions.hpp"
#include "sinks/sink_test_support.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/timestep_params.hpp"

using namespace mpsph;

namespace {

// This rank's block [lo, hi) of `all` (every field), its gas range the part of [0, n_gas) of `all`
// in it, and its part of `a`, shifted.
struct Block {
  std::size_t lo = 0, hi = 0;
  ParticleStore s;
  std::vector<uint32_t> active_index;
  ActiveSet active;
};

Block cut_block(const ParticleStore& all, const ActiveSet& a, const MpiComm& comm) {
  Block b;
  const std::size_t n = all.size(), P = std::size_t(comm.size()), r = std::size_t(comm.rank());
  b.lo = n * r / P;
  b.hi = n * (r + 1) / P;
  std::vector<uint32_t> idx;
  for (std::size_t i = b.lo; i < b.hi; ++i) idx.push_back(uint32_t(i));
  std::vector<uint32_t> into(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) into[k] = uint32_t(k);
  b.s.resize(idx.size());
  b.s.copy_particles(all, idx, into);
  // The gas range of the order stage, pinned as the rank backend pins it: a type changed in place
  // earlier in the substep keeps the particle in it.
  const std::size_t n_gas = std::min(std::max(all.n_gas(), b.lo), b.hi) - b.lo;
  std::vector<uint8_t> t = b.s.type;
  for (std::size_t i = 0; i < n_gas; ++i) b.s.type[i] = kGas;
  b.s.pin_n_gas();
  b.s.type = t;
  if (!a.all()) {
    std::size_t active_gas = 0;
    for (std::size_t k = 0; k < a.n; ++k)
      if (a[k] >= b.lo && a[k] < b.hi) {
        b.active_index.push_back(uint32_t(a[k] - b.lo));
        active_gas += a[k] < all.n_gas();
      }
    b.active = active_subset(b.active_index, active_gas, a.tick);
  }
  return b;
}

// Every field of particle i of `a` equals that of particle j of `b`, byte for byte; else the
// first field that differs.
std::string first_difference(const ParticleStore& a, std::size_t i, const ParticleStore& b,
                             std::size_t j) {
  std::string diff;
  const ParticleStore* bp = &b;
  a.for_each_field([&](const FieldInfo& f, const auto& v) {
    if (!diff.empty()) return;
    bp->for_each_field([&](const FieldInfo& g, const auto& w) {
      if (!diff.empty() || std::strcmp(f.member, g.member) != 0) return;
      if (sizeof(v[i]) != sizeof(w[j]) || std::memcmp(&v[i], &w[j], sizeof(v[i])) != 0)
        diff = f.member;
    });
  });
  return diff;
}

struct Counts {
  long stages = 0, substeps = 0, created = 0, merges = 0, accreted = 0;
};

// The run to t_end; with `two_sinks` the initial conditions hold two sinks falling towards each
// other (test::write_sink_merge_ics: they merge at t ~ 0.2), else the sphere rotates (the core
// forms sinks).
Counts sinks_across_ranks(bool two_sinks, double t_end) {
  const MpiComm comm;
  const std::string yaml =
      "run: {t_end: 1.0}\n"
      "setup: {type: evrard, n_particles: 400}\n"
      "timestep: {scheme: block, dt_max: 0.05}\n" +
      test::sink_sphere_sections();
  const Config cfg = Config::from_string(yaml, "collapse.yaml", program_schema());
  const UnitSystem units = UnitSystem::from_config(cfg);
  const SphParams sph = sph_params_from(cfg);
  const EosParams eos = eos_params_from(cfg);
  const GravityParams grav = gravity_params_from(cfg);
  const TimestepParams tstep = timestep_params_from(cfg);
  InitialState init = make_initial_state(cfg);
  ParticleStore store = std::move(init.particles);
  // Solid rotation about z (sink_validation.cpp), beta ~ 0.05.
  if (!two_sinks)
    for (std::size_t i = 0; i < store.size(); ++i)
      store.vel[i] = Vec3d{-0.3 * store.pos[i].y, 0.3 * store.pos[i].x, 0.0};
  const Vec3d at[2] = {{0.1, 0.01, 0.0}, {-0.1, -0.01, 0.0}};
  for (int k = 0; k < (two_sinks ? 2 : 0); ++k) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < store.size(); ++i)
      if (store.type[i] == kGas && norm2(store.pos[i] - at[k]) < norm2(store.pos[best] - at[k]))
        best = i;
    store.type[best] = kSink;
    store.id[best] = 1000001 + uint64_t(k);
    store.mass[best] = 0.05;
    store.pos[best] = at[k];
    store.vel[best] = Vec3d{k ? 0.1 : -0.1, 0.0, 0.0};
  }
  store.sort_by_type();

  std::vector<std::unique_ptr<PhysicsModule>> ref_modules = make_modules(cfg, units, Backend::Cpu);
  std::vector<std::unique_ptr<PhysicsModule>> rank_modules = make_modules(cfg, units, Backend::Cpu);
  PhysicsModule *ref = nullptr, *across = nullptr;
  for (std::size_t k = 0; k < ref_modules.size(); ++k)
    if (ref_modules[k]->section() == "sinks")
      ref = ref_modules[k].get(), across = rank_modules[k].get();
  REQUIRE(ref != nullptr);
  REQUIRE(across->runs_across_ranks());
  const std::vector<ModuleStage> stages = ref->stages();
  REQUIRE(stages.size() == 3);  // sinks (AfterCorrect), sinks.csv, sink steps (StepLimit)

  const StepContext ctx{store, init.box, sph, eos, grav, tstep, units.G, {}};
  std::unique_ptr<StepBackend> b = make_cpu_backend(ctx);
  b->set_next_id(2000000);
  b->sync_from_host();
  auto forces = [&] {
    b->order();
    b->smoothing_lengths();
    b->density();
    b->prepare_force();
    b->sph_forces();
    b->gravity();
    b->end_force();
  };
  // The active set of the substep as the backend's stages see it: the particles whose steps end
  // now (all of them at a segment's end).
  std::vector<uint32_t> active_index;
  auto active_set = [&](int64_t now) {
    if (now >= kTicks) return ActiveSet{};
    active_index.clear();
    std::size_t n_gas = 0;
    for (std::size_t i = 0; i < store.size(); ++i)
      if (store.ti_end[i] == now) active_index.push_back(uint32_t(i)), n_gas += i < store.n_gas();
    return active_subset(active_index, n_gas, now);
  };
  long compared = 0, merges = 0, created = 0, accreted = 0;
  auto stage_both = [&](std::size_t k, int64_t now, double t, long step, double length) {
    const ActiveSet a = active_set(now);
    Block blk = cut_block(store, a, comm);
    const std::size_t sinks_before = store.count_by_type()[kSink];
    const std::size_t gas_before = store.count_by_type()[kGas];
    MpiModuleRanks ranks(blk.s, comm);
    std::array<std::size_t, kNumTypes + 1> tb{};
    across->run_stage(k, StageArgs{blk.s.view(), init.box, t, step, blk.active,
                                   length / double(kTicks), tb, true, nullptr, &ranks});
    b->run_module_stage(*ref, k, t, step);
    std::string d;
    std::size_t at = 0;
    for (std::size_t i = blk.lo; i < blk.hi && d.empty(); ++i) {
      d = first_difference(store, i, blk.s, i - blk.lo);
      at = i;
    }
    // Every rank stops together (a rank that stopped alone would leave the others waiting).
    const bool differs = comm.any(!d.empty());
    INFO("stage " << stages[k].name << " at t = " << t << ": on rank " << comm.rank()
                  << (d.empty() ? " every particle is equal"
                                : ", particle id " + std::to_string(store.id[at]) +
                                      " differs in field " + d));
    REQUIRE_FALSE(differs);
    ++compared;
    const auto after = store.count_by_type();
    created += after[kSink] > sinks_before ? long(after[kSink] - sinks_before) : 0;
    merges += after[kSink] < sinks_before ? long(sinks_before - after[kSink]) : 0;
    accreted += long(gas_before - after[kGas]);
  };

  forces();
  b->limit_steps();
  REQUIRE(b->timestep().dt > 0.0);
  double t = 0.0;
  long step = 0;
  while (t < t_end - 1e-12) {
    const double length = std::min(tstep.dt_max, t_end - t);
    REQUIRE(b->begin_segment(length, false));
    for (;;) {
      const int64_t now = b->next_tick();
      const double ts = t + double(now) * (length / double(kTicks));
      b->predict(now);
      forces();
      b->correct(false);
      stage_both(0, now, ts, step, length);
      ++step;
      b->limit_steps();
      stage_both(2, now, ts, step, length);
      REQUIRE(b->timestep().rungs_ok);
      if (now == kTicks) break;
    }
    t += length;
  }
  const auto counts = store.count_by_type();
  WARN(comm.size() << " ranks, " << (two_sinks ? "two sinks" : "rotating sphere") << ": "
                   << compared << " sink stages equal to one process's over " << step
                   << " substeps; " << created << " sinks made, " << merges << " merges, "
                   << accreted << " gas particles accreted; " << counts[kSink]
                   << " sinks at t = " << t_end);
  return Counts{compared, step, created, merges, accreted};
}

}  // namespace

TEST_CASE(
    "module ranks: sink creation, accretion, merging, wake-up and the sinks' steps across ranks "
    "give one process's particles bit for bit",
    "[module_ranks][sinks]") {
  // Each run must exercise its paths: new sinks and accretion, a merge and accretion.
  const Counts rotating = sinks_across_ranks(false, 1.0);
  CHECK(rotating.created >= 1);
  CHECK(rotating.accreted >= 10);
  const Counts pair = sinks_across_ranks(true, 0.5);
  CHECK(pair.merges >= 1);
  CHECK(pair.accreted >= 10);
}
