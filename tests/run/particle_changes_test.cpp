// Particles that change type, are created and are removed (run/particle_changes.hpp) through the
// CPU backend's order stage: totals conserved, ids unique and new ids continuing the run's, the
// type order restored, pending requests surviving a checkpoint.
#include "run/particle_changes.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "catch.hpp"
#include "io/checkpoint.hpp"
#include "io/hdf5_util.hpp"
#include "run/particle_changes_support.hpp"

using namespace mpsph;

TEST_CASE("spawn_particles appends children in parent order with new ids", "[run][changes]") {
  ParticleStore s;
  s.resize(5);
  for (std::size_t i = 0; i < 5; ++i) {
    s.id[i] = 10 + i;
    s.mass[i] = 1.0 + i;
    s.pos[i] = {double(i), 0, 0};
    s.vel[i] = {0, double(i), 0};
    s.type[i] = kCloud;
  }
  s.spawn_mass[3] = 0.5, s.spawn_type[3] = kNewStar;
  s.spawn_mass[1] = 0.25, s.spawn_type[1] = kNewStar;
  uint64_t next = first_free_id(s);
  CHECK(next == 15);
  CHECK(spawn_particles(s, next) == 2);
  CHECK(next == 17);
  REQUIRE(s.size() == 7);
  // Children in the store order of their parents: parent 1 first.
  CHECK(s.id[5] == 15);
  CHECK(s.id[6] == 16);
  CHECK(s.type[5] == kNewStar);
  CHECK(s.mass[5] == 0.25);
  CHECK(s.mass[1] == 1.75);
  CHECK(s.pos[5].x == 1.0);
  CHECK(s.vel[6].y == 3.0);
  CHECK(s.mass[3] == 3.5);
  for (std::size_t i = 0; i < s.size(); ++i) CHECK(s.spawn_mass[i] == 0.0);
  CHECK(spawn_particles(s, next) == 0);  // requests are cleared
}

TEST_CASE(
    "the CPU order stage applies type changes, creation and removal, conserving mass, "
    "momentum, metals and ids",
    "[run][changes]") {
  ParticleStore store = test::mixed_store(3000);
  Box box;
  SphParams sph;
  EosParams eos;
  GravityParams grav;
  TimestepParams ts;
  ts.scheme = TimestepScheme::Global;
  auto b = make_cpu_backend(StepContext{store, box, sph, eos, grav, ts, 1.0, {}});
  b->set_next_id(first_free_id(store));
  b->sync_from_host();
  b->order();
  std::set<uint64_t> ids(store.id.begin(), store.id.end());
  REQUIRE(ids.size() == store.size());

  for (uint64_t round = 1; round <= 4; ++round) {
    const test::Totals before = test::totals(store);
    const uint64_t next0 = b->next_id();
    test::change_particles(store, round);
    std::size_t removed = 0, spawns = 0;
    std::set<uint64_t> expect;
    for (std::size_t i = 0; i < store.size(); ++i) {
      removed += store.type[i] == kRemoved;
      spawns += store.spawn_mass[i] > 0;
      if (store.type[i] != kRemoved) expect.insert(store.id[i]);
    }
    REQUIRE(removed > 0);
    REQUIRE(spawns > 0);
    const std::size_t n0 = store.size();
    b->order();
    const test::Totals after = test::totals(store);
    INFO("round " << round << ": " << removed << " removed, " << spawns << " spawned");
    CHECK(store.size() == n0 - removed + spawns);
    CHECK(b->particle_count() == store.size());
    CHECK(b->next_id() == next0 + spawns);
    CHECK(test::rel(after.mass, before.mass) < 1e-14);
    CHECK(test::rel(after.fe, before.fe) < 1e-13);
    CHECK(norm(after.momentum - before.momentum) < 1e-14 * norm(before.momentum) + 1e-14);
    // Types sorted, gas first; n_gas follows; ids unique; new ids are next0 .. next0 + spawns - 1.
    CHECK(std::is_sorted(store.type.begin(), store.type.end()));
    CHECK(b->gas_count() == store.count_by_type()[kGas]);
    for (uint64_t id = next0; id < next0 + spawns; ++id) expect.insert(id);
    const std::set<uint64_t> got(store.id.begin(), store.id.end());
    CHECK(got.size() == store.size());
    CHECK(got == expect);
    for (std::size_t i = 0; i < store.size(); ++i) {
      CHECK(store.type[i] < kNumTypes);
      CHECK(store.spawn_mass[i] == 0.0);
      CHECK(store.mass[i] > 0.0);
    }
  }
}

TEST_CASE("a checkpoint keeps pending particle changes and stores masked fields per type",
          "[run][changes][io]") {
  ParticleStore s = test::mixed_store(400);
  test::change_particles(s, 1);
  const std::string path =
      (std::filesystem::temp_directory_path() / "mpsph_changes_ckpt.h5").string();
  CheckpointState st;
  st.config_yaml = "x: 1\n";
  write_checkpoint(path, s, st);
  {
    // The gas-only u holds one row per gas particle, the AllTypes mass one per particle.
    h5::File f = h5::open_for_reading(path, "checkpoint");
    const auto rows = [&](const char* name) {
      h5::Dataset d(H5Dopen2(f.get(), name, H5P_DEFAULT));
      return std::size_t(h5::dataset_info(d.get(), name, "test").shape.at(0));
    };
    CHECK(rows("/Particles/u") == s.count_by_type()[kGas]);
    CHECK(rows("/Particles/mass") == s.size());
  }
  CheckpointState back_state;
  const ParticleStore back = read_checkpoint(path, &back_state);
  REQUIRE(back.size() == s.size());
  CHECK(back.type == s.type);
  CHECK(back.id == s.id);
  CHECK(back.mass == s.mass);
  CHECK(back.spawn_mass == s.spawn_mass);
  CHECK(back.spawn_type == s.spawn_type);
  // Gas-only fields are restored for the gas; other particles hold no value for them.
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.type[i] == kGas) CHECK(back.u[i] == s.u[i]);
  std::filesystem::remove(path);
}
