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
#include "sph/eos_kern.hpp"
#include "sph/eos_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/timestep_params.hpp"

using namespace mpsph;

namespace {

// This rank's part of `all` (every field): consecutive blocks of the store (`scattered` false: rank
// r holds [r n / P, (r + 1) n / P)) or every P-th particle from the rank's (true). `global`: the
// store index in `all` of each particle, ascending, so that the gas of the order stage - [0, n_gas)
// of `all` - comes first here too (pinned as the rank backend pins it: a type changed in place
// earlier in the substep keeps the particle in it); `active`: the part of `a`.
struct Block {
  std::vector<uint32_t> global;
  ParticleStore s;
  std::vector<uint32_t> active_index;
  ActiveSet active;
};

Block cut_block(const ParticleStore& all, const ActiveSet& a, const MpiComm& comm, bool scattered) {
  Block b;
  const std::size_t n = all.size(), P = std::size_t(comm.size()), r = std::size_t(comm.rank());
  for (std::size_t i = 0; i < n; ++i)
    if (scattered ? i % P == r : i >= n * r / P && i < n * (r + 1) / P)
      b.global.push_back(uint32_t(i));
  std::vector<uint32_t> into(b.global.size());
  for (std::size_t k = 0; k < into.size(); ++k) into[k] = uint32_t(k);
  b.s.resize(b.global.size());
  b.s.copy_particles(all, b.global, into);
  std::size_t n_gas = 0;
  while (n_gas < b.global.size() && b.global[n_gas] < all.n_gas()) ++n_gas;
  std::vector<uint8_t> t = b.s.type;
  for (std::size_t i = 0; i < n_gas; ++i) b.s.type[i] = kGas;
  b.s.pin_n_gas();
  b.s.type = t;
  if (!a.all()) {
    std::size_t active_gas = 0;
    for (std::size_t k = 0; k < a.n; ++k) {
      const auto it = std::lower_bound(b.global.begin(), b.global.end(), uint32_t(a[k]));
      if (it == b.global.end() || *it != a[k]) continue;
      b.active_index.push_back(uint32_t(it - b.global.begin()));
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
  double given = 0.0;     // feedback: mass the stars gave up (code mass)
  long mass_changes = 0;  // particles whose mass a stage changed, over all stages
  long type_changes = 0;  // particles whose type a stage changed, over all stages
};

// The run of `yaml` from `store` to t_end on one process (CPU backend, block steps): at every
// stage of the module of config section `section` (after the forces, after the corrector, at the
// time-step stage) the stage runs across the ranks on consecutive blocks of a copy of the store
// and on one process on the store; every field of every particle must be equal (collective).
Counts compare_stages(const std::string& yaml, ParticleStore store, const Box& box,
                      const std::string& section, double t_end, bool scattered) {
  const MpiComm comm;
  const Config cfg = Config::from_string(yaml, "run.yaml", program_schema());
  const UnitSystem units = UnitSystem::from_config(cfg);
  const SphParams sph = sph_params_from(cfg);
  const EosParams eos = eos_params_from(cfg);
  const GravityParams grav = gravity_params_from(cfg);
  const TimestepParams tstep = timestep_params_from(cfg);
  REQUIRE(tstep.scheme == TimestepScheme::Block);
  std::vector<std::unique_ptr<PhysicsModule>> ref_modules = make_modules(cfg, units, Backend::Cpu);
  std::vector<std::unique_ptr<PhysicsModule>> rank_modules = make_modules(cfg, units, Backend::Cpu);
  PhysicsModule *ref = nullptr, *across = nullptr;
  for (std::size_t k = 0; k < ref_modules.size(); ++k)
    if (ref_modules[k]->section() == section)
      ref = ref_modules[k].get(), across = rank_modules[k].get();
  REQUIRE(ref != nullptr);
  REQUIRE(across->runs_across_ranks());
  const std::vector<ModuleStage> stages = ref->stages();

  const StepContext ctx{store, box, sph, eos, grav, tstep, units.G, {}};
  std::unique_ptr<StepBackend> b = make_cpu_backend(ctx);
  b->set_next_id(10000000);
  b->sync_from_host();
  std::vector<uint8_t> order_types;  // the store's types after its last order stage
  auto forces = [&] {
    b->order();
    order_types = store.type;
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
  Counts c;
  auto stage_both = [&](Slot slot, int64_t now, double t, long step, double length) {
    for (std::size_t k = 0; k < stages.size(); ++k) {
      if (stages[k].slot != slot) continue;
      const ActiveSet a = active_set(now);
      Block blk = cut_block(store, a, comm, scattered);
      const auto before = store.count_by_type();
      double star_mass = 0.0;
      for (std::size_t i = 0; i < store.size(); ++i)
        if (store.type[i] == kOldStar || store.type[i] == kNewStar) star_mass += store.mass[i];
      const std::vector<double> mass_before = store.mass;
      const std::vector<uint8_t> type_before = store.type;
      MpiModuleRanks ranks(blk.s, comm);
      // One process's order within a type is its store order: the global indices.
      const std::vector<uint64_t> keys(blk.global.begin(), blk.global.end());
      ranks.set_order_keys(&keys);
      // The type ranges of the order stage (as the rank backend keeps them): the block's types,
      // sorted then (a stage may change types in place until the next order stage).
      std::vector<uint8_t> type_at_order;
      for (uint32_t g : blk.global) type_at_order.push_back(order_types[g]);
      std::array<std::size_t, kNumTypes + 1> tb{};
      for (int t = 0; t <= kNumTypes; ++t)
        tb[std::size_t(t)] =
            std::size_t(std::lower_bound(type_at_order.begin(), type_at_order.end(), uint8_t(t)) -
                        type_at_order.begin());
      across->run_stage(k, StageArgs{blk.s.view(), box, t, step, blk.active,
                                     length / double(kTicks), tb, true, nullptr, &ranks});
      b->run_module_stage(*ref, k, t, step);
      std::string d;
      std::size_t at = 0;
      for (std::size_t k = 0; k < blk.global.size() && d.empty(); ++k) {
        at = blk.global[k];
        d = first_difference(store, at, blk.s, k);
      }
      // Every rank stops together (a rank that stopped alone would leave the others waiting).
      const bool differs = comm.any(!d.empty());
      INFO("stage " << stages[k].name << " at t = " << t << ": on rank " << comm.rank()
                    << (d.empty() ? " every particle is equal"
                                  : ", particle id " + std::to_string(store.id[at]) +
                                        " differs in field " + d));
      REQUIRE_FALSE(differs);
      ++c.stages;
      const auto after = store.count_by_type();
      c.created += after[kSink] > before[kSink] ? long(after[kSink] - before[kSink]) : 0;
      c.merges += after[kSink] < before[kSink] ? long(before[kSink] - after[kSink]) : 0;
      c.accreted += long(before[kGas] - after[kGas]);
      for (std::size_t i = 0; i < store.size(); ++i) {
        if (store.type[i] == kOldStar || store.type[i] == kNewStar) star_mass -= store.mass[i];
        c.mass_changes += store.mass[i] != mass_before[i];
        c.type_changes += store.type[i] != type_before[i];
      }
      c.given += star_mass;
    }
  };

  forces();
  b->limit_steps();
  REQUIRE(b->timestep().dt > 0.0);
  double t = 0.0;
  long step = 0;
  while (t < t_end * (1.0 - 1e-12)) {
    const double length = std::min(tstep.dt_max, t_end - t);
    REQUIRE(b->begin_segment(length, false));
    for (;;) {
      const int64_t now = b->next_tick();
      const double ts = t + double(now) * (length / double(kTicks));
      b->predict(now);
      forces();
      stage_both(Slot::AfterForces, now, ts, step, length);
      b->correct(eos_evolves_u(eos));
      stage_both(Slot::AfterCorrect, now, ts, step, length);
      ++step;
      b->limit_steps();
      stage_both(Slot::StepLimit, now, ts, step, length);
      REQUIRE(b->timestep().rungs_ok);
      if (now == kTicks) break;
    }
    t += length;
  }
  c.substeps = step;
  return c;
}

// The sink runs to t_end; with `two_sinks` the initial conditions hold two sinks falling towards
// each other (test::write_sink_merge_ics: they merge at t ~ 0.2), else the sphere rotates (the
// core forms sinks).
Counts sinks_across_ranks(bool two_sinks, double t_end) {
  const std::string yaml =
      "run: {t_end: 1.0}\n"
      "setup: {type: evrard, n_particles: 400}\n"
      "timestep: {scheme: block, dt_max: 0.05}\n" +
      test::sink_sphere_sections();
  const Config cfg = Config::from_string(yaml, "collapse.yaml", program_schema());
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
  // Consecutive blocks: rank 0's work store is then in one process's order (module_ranks.hpp).
  const Counts c = compare_stages(yaml, std::move(store), init.box, "sinks", t_end, false);
  WARN(MpiComm().size() << " ranks, " << (two_sinks ? "two sinks" : "rotating sphere") << ": "
                        << c.stages << " sink stages equal to one process's over " << c.substeps
                        << " substeps; " << c.created << " sinks made, " << c.merges << " merges, "
                        << c.accreted << " gas particles accreted");
  return c;
}

// SSP feedback in the periodic gas box of setups/ssp_box.yaml (10^3 gas particles, 3.6 kpc, n_H
// 0.1, 1e4 K) with 40 more stars of 1e4 Msun made from gas particles spread through the box, of
// ages 3-40 Myr (in their SN II phase), to t = 20 (~20 Myr).
Counts feedback_across_ranks() {
  const std::string yaml =
      "run: {t_end: 20}\n"
      "units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n"
      "setup: {type: ssp_box, n_side: 10, box_size: 3600, n_H: 0.1, temperature: 1.0e4, "
      "star_mass_msun: 1.0e4, star_age_myr: 5, star_metallicity: 0.02}\n"
      "eos: {type: adiabatic}\n"
      "gravity: {enabled: false}\n"
      "timestep: {scheme: block, dt_max: 2.0, use_velocity: false}\n"
      "feedback: {model: ssp}\n";
  const Config cfg = Config::from_string(yaml, "ssp.yaml", program_schema());
  InitialState init = make_initial_state(cfg);
  ParticleStore store = std::move(init.particles);
  const std::size_t star = store.size() - 1;  // the setup's star, after the gas
  REQUIRE(store.type[star] == kOldStar);
  for (std::size_t k = 0; k < 40; ++k) {
    const std::size_t i = 7 + 23 * k;  // gas particles spread through the box
    REQUIRE(store.type[i] == kGas);
    store.type[i] = k % 2 ? kNewStar : kOldStar;
    store.mass[i] = store.initial_mass[i] = store.mass[star];
    store.birth_time[i] = store.birth_time[star] * (0.6 + 0.2 * double(k));  // 3 ... 41 Myr
    store.birth_z[i] = 0.02;
  }
  store.sort_by_type();
  // Every P-th particle on a rank: the stars and the gas near each of them are spread over the
  // ranks, and a receiver takes shares from stars of several ranks.
  const Counts c = compare_stages(yaml, std::move(store), init.box, "feedback", 20.0, true);
  WARN(MpiComm().size() << " ranks, feedback: " << c.stages
                        << " feedback stages equal to one process's over " << c.substeps
                        << " substeps; the stars gave up " << c.given << " Msun");
  return c;
}

// The cold phase in the gas box of setups/multiphase_box.yaml (12^3 gas, hot with warm clumps;
// collisions among the clouds, evaporation, condensation and drag with the gas), with block
// steps, to t = 0.3: the clumps turn into clouds, which collide and exchange mass with the gas.
Counts cold_phase_across_ranks() {
  const std::string yaml =
      "run: {t_end: 0.3}\n"
      "units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n"
      "setup: {type: multiphase_box, n_side: 12, box_size: 200, n_H: 0.1, temperature: 1.0e7, "
      "warm_temperature: 8000, n_clumps: 8, clump_radius: 25, fe_h: 0.0, seed: 1}\n"
      "gravity: {enabled: false}\n"
      "cooling: {model: sd93, metals: particles, floor_K: 100}\n"
      "multiphase: {model: sticky_clouds, evaporation: cowie_mckee, drag_coefficient: 1.0}\n"
      "timestep: {scheme: block, dt_max: 0.05}\n";
  const Config cfg = Config::from_string(yaml, "multiphase.yaml", program_schema());
  InitialState init = make_initial_state(cfg);
  // Consecutive blocks: rank 0's work store is then in one process's order (module_ranks.hpp).
  const Counts c =
      compare_stages(yaml, std::move(init.particles), init.box, "multiphase", 0.3, false);
  WARN(MpiComm().size() << " ranks, cold phase: " << c.stages
                        << " stages equal to one process's over " << c.substeps << " substeps; "
                        << c.type_changes << " type changes, " << c.mass_changes
                        << " mass changes");
  return c;
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

TEST_CASE("module ranks: SSP feedback across ranks gives one process's particles bit for bit",
          "[module_ranks][feedback]") {
  const Counts c = feedback_across_ranks();
  CHECK(c.given > 0.0);
}

TEST_CASE(
    "module ranks: the cold phase (cloud collisions, evaporation, condensation and drag, cloud "
    "formation, the clouds' steps) across ranks gives one process's particles bit for bit",
    "[module_ranks][multiphase]") {
  const Counts c = cold_phase_across_ranks();
  CHECK(c.type_changes >= 10);   // gas turned into clouds (and clouds merged or evaporated)
  CHECK(c.mass_changes >= 100);  // the clouds' exchange with the gas
}
