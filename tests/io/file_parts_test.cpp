// Snapshots and checkpoints written in parts, one after the other (io/snapshot.hpp SnapshotPart,
// io/checkpoint.hpp CheckpointPart; the MPI ranks write theirs in turn): the parts of a store cut
// into consecutive ranges make the file of the whole store, read back bit for bit.
#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "core/particle_store_support.hpp"
#include "io/checkpoint.hpp"
#include "io/io_test_support.hpp"
#include "io/snapshot.hpp"

using namespace mpsph;

namespace {

// Every field of a and b bit for bit.
bool same_store(const ParticleStore& a, const ParticleStore& b) {
  bool same = a.size() == b.size();
  a.for_each_field([&](const FieldInfo& f, const auto& v) {
    b.for_each_field([&](const FieldInfo& g, const auto& w) {
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::decay_t<decltype(w)>>)
        if (std::string(f.member) == g.member && !test::same_bits(v, w)) {
          UNSCOPED_INFO("field " << f.member << " differs");
          same = false;
        }
    });
  });
  return same;
}

// Unsorted types, every type, and a part without gas.
const std::vector<uint8_t> kTypes = {4, 0, 1, 0, 5, 2, 3, 0, 1, 1, 3, 0, 2};
const std::vector<std::size_t> kCuts = {0, 4, 4, 9, 13};  // parts of 4, 0, 5 and 4 particles

}  // namespace

TEST_CASE("a snapshot written in parts is the snapshot of the whole store", "[io][snapshot]") {
  const ParticleStore s = test::make_store(kTypes);
  SnapshotMeta meta;
  meta.time = 0.5;
  meta.step = 12;
  meta.config_yaml = "run:\n  t_end: 1\n";
  const std::string whole = test::scratch_path("whole_snapshot.h5");
  const std::string parts = test::scratch_path("parts_snapshot.h5");
  write_snapshot(whole, s, meta, {"Acceleration"});

  const std::array<uint64_t, kNumTypes> total = snapshot_counts(s);
  std::array<uint64_t, kNumTypes> first{};
  for (std::size_t k = 0; k + 1 < kCuts.size(); ++k) {
    const ParticleStore p = test::store_rows(s, kCuts[k], kCuts[k + 1]);
    SnapshotPart part;
    part.total = total;
    part.first = first;
    part.creates = k == 0;
    write_snapshot_part(parts, p, meta, {"Acceleration"}, part);
    CHECK_FALSE(std::filesystem::exists(parts));  // not before the commit
    const std::array<uint64_t, kNumTypes> c = snapshot_counts(p);
    for (int t = 0; t < kNumTypes; ++t) first[t] += c[t];
  }
  commit_parts(parts, "snapshot");
  CHECK_FALSE(std::filesystem::exists(parts + ".tmp"));
  SnapshotMeta a, b;
  CHECK(same_store(read_snapshot(parts, &a), read_snapshot(whole, &b)));
  CHECK(a.time == b.time);
  CHECK(a.step == b.step);

  // A part past the file's rows is an error, and the parts' file can be discarded.
  SnapshotPart wrong;
  wrong.total = total;
  wrong.creates = true;
  write_snapshot_part(parts, s, meta, {}, wrong);
  wrong.creates = false;
  wrong.first[0] = 1;
  CHECK_THROWS_WITH(write_snapshot_part(parts, s, meta, {}, wrong),
                    Catch::Matchers::Contains("do not fit"));
  discard_parts(parts);
  CHECK_FALSE(std::filesystem::exists(parts + ".tmp"));
}

TEST_CASE("a checkpoint written in parts is the checkpoint of the whole store",
          "[io][checkpoint]") {
  ParticleStore s = test::make_store(kTypes);
  s.type[6] = kRemoved;  // removed since the last order stage: kept, with the fields of all types
  CheckpointState st;
  st.time = 1.25;
  st.step = 7;
  st.scalars = {{"t_start", 0.1}};
  const std::string whole = test::scratch_path("whole_checkpoint.h5");
  const std::string parts = test::scratch_path("parts_checkpoint.h5");
  write_checkpoint(whole, s, st);

  CheckpointPart part;
  part.total = s.size();
  part.field_total = checkpoint_field_rows(s);
  part.field_first.assign(part.field_total.size(), 0);
  for (std::size_t k = 0; k + 1 < kCuts.size(); ++k) {
    const ParticleStore p = test::store_rows(s, kCuts[k], kCuts[k + 1]);
    part.creates = k == 0;
    write_checkpoint_part(parts, p, st, part);
    const std::vector<uint64_t> rows = checkpoint_field_rows(p);
    for (std::size_t f = 0; f < rows.size(); ++f) part.field_first[f] += rows[f];
    part.first += p.size();
  }
  CHECK(part.first == part.total);
  commit_parts(parts, "checkpoint");
  CheckpointState a, b;
  CHECK(same_store(read_checkpoint(parts, &a), read_checkpoint(whole, &b)));
  CHECK(a.time == b.time);
  CHECK(a.scalars == b.scalars);
}

TEST_CASE("a checkpoint read in parts gives the whole store's ranges", "[io][checkpoint]") {
  ParticleStore s = test::make_store(kTypes);
  s.type[6] = kRemoved;
  CheckpointState st;
  st.time = 2.5;
  st.step = 9;
  const std::string path = test::scratch_path("read_in_parts.h5");
  write_checkpoint(path, s, st);
  const ParticleStore whole = read_checkpoint(path, nullptr);
  REQUIRE(checkpoint_particles(path) == s.size());
  // Each part's field rows from every part's types, as the ranks find them (run/simulation.cpp).
  std::vector<std::vector<uint8_t>> types;
  for (std::size_t k = 0; k + 1 < kCuts.size(); ++k)
    types.push_back(read_checkpoint_types(path, kCuts[k], kCuts[k + 1] - kCuts[k]));
  CheckpointPart part;
  part.total = s.size();
  part.field_total = checkpoint_field_rows(s);
  part.field_first.assign(part.field_total.size(), 0);
  for (std::size_t k = 0; k + 1 < kCuts.size(); ++k) {
    INFO("part " << k);
    part.first = kCuts[k];
    const std::vector<uint64_t> rows = checkpoint_field_rows(types[k]);
    CheckpointState got;
    const ParticleStore p = read_checkpoint_part(path, part, types[k], &got);
    CHECK(same_store(p, test::store_rows(whole, kCuts[k], kCuts[k + 1])));
    CHECK(got.time == st.time);
    for (std::size_t f = 0; f < rows.size(); ++f) part.field_first[f] += rows[f];
  }
  // A range beyond the file: an error naming it.
  CHECK_THROWS_WITH(read_checkpoint_types(path, 10, 5),
                    Catch::Contains("rows 10 to 15 of dataset /Particles/type"));
}

TEST_CASE("a snapshot read in parts gives each type's rows in turn", "[io][snapshot]") {
  const ParticleStore s = test::make_store(kTypes);
  SnapshotMeta meta;
  meta.time = 0.75;
  const std::string path = test::scratch_path("ic_in_parts.h5");
  write_snapshot(path, s, meta, {});
  SnapshotMeta whole_meta;
  const ParticleStore whole = read_snapshot(path, &whole_meta);
  for (const std::size_t parts : {std::size_t(1), std::size_t(3), std::size_t(5)}) {
    INFO(parts << " parts");
    // Each type's particles over the parts in order are the whole file's, bit for bit.
    std::array<std::vector<uint64_t>, kNumTypes> ids;
    std::size_t total = 0;
    for (std::size_t r = 0; r < parts; ++r) {
      SnapshotMeta m;
      const ParticleStore p = read_snapshot_part(path, &m, r, parts);
      CHECK(m.time == whole_meta.time);
      CHECK(m.datasets == whole_meta.datasets);
      for (std::size_t i = 0; i < p.size(); ++i) {
        ids[p.type[i]].push_back(p.id[i]);
        if (i > 0) CHECK(p.type[i - 1] <= p.type[i]);  // each part sorted by type
      }
      total += p.size();
    }
    CHECK(total == whole.size());
    for (int t = 0; t < kNumTypes; ++t) {
      std::vector<uint64_t> want;
      for (std::size_t i = 0; i < whole.size(); ++i)
        if (whole.type[i] == t) want.push_back(whole.id[i]);
      CHECK(ids[std::size_t(t)] == want);
    }
  }
  CHECK_THROWS_WITH(read_snapshot_part(path, nullptr, 3, 3), Catch::Contains("part 3 of 3"));
}
