// Checkpoints: a restart must see bit-identical particles (every Kept field, store order) and
// state; damaged or foreign files must be refused with a message naming file and problem.
#include "io/checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>

#include "catch.hpp"
#include "io/io_test_support.hpp"
#include "io/snapshot.hpp"

using namespace mpsph;
using mpsph::test::contains;
using mpsph::test::error_message;
using mpsph::test::same_bits;

namespace {

CheckpointState sample_state() {
  CheckpointState st;
  st.time = 2.718281828459045;
  st.dt = 1.0 / 3.0;
  st.step = 123456789012L;
  st.next_snapshot = 17;
  st.scalars = {{"radiated_energy", -1.0e-17}, {"t_start", 0.1}, {"rng.seed", 6.02214076e23}};
  st.counters = {{"rng.stream.sf", std::numeric_limits<long>::max()}, {"sinks.created", -3}};
  st.config_yaml = "run:\n  t_end: 3\n";
  return st;
}

}  // namespace

TEST_CASE("checkpoint round trip is bit-exact in store order", "[io][checkpoint]") {
  const std::string path = test::scratch_path("restart.h5");
  // Unsorted types: a checkpoint keeps the store's order (no per-type split). A field is stored
  // for the particles of its types only (gas-only u for the gas): those come back bit for bit,
  // the others as zero.
  ParticleStore s = test::make_store({4, 0, 1, 0, 5, 2, 3, 0, 1});
  s.pos[1].z = std::numeric_limits<double>::quiet_NaN();  // even NaN payloads survive
  s.dudt[3] = -0.0;
  write_checkpoint(path, s, sample_state());
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

  CheckpointState st;
  const ParticleStore r = read_checkpoint(path, &st);
  REQUIRE(r.size() == s.size());
  int kept = 0, compared = 0;
  r.for_each_field([&](const FieldInfo& f, const auto& v) {
    if (f.persistence != Persistence::Kept) return;
    ++kept;
    s.for_each_field([&](const FieldInfo& g, const auto& w) {
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::decay_t<decltype(w)>>)
        if (std::string(g.member) == f.member) {
          INFO("field " << f.member);
          auto expected = w;
          using T = typename std::decay_t<decltype(w)>::value_type;
          for (std::size_t i = 0; i < s.size(); ++i)
            if (!((f.types >> s.type[i]) & 1u)) expected[i] = T{};
          CHECK(same_bits(v, expected));
          ++compared;
        }
    });
  });
  // Every Kept field found its twin and was compared (at least pos vel mass id type u h rho acc
  // dudt; modules add more).
  CHECK(compared == kept);
  CHECK(kept >= 10);
  // Scratch fields are not stored: they come back zero.
  CHECK(same_bits(r.pot, std::vector<double>(r.size(), 0.0)));

  const CheckpointState want = sample_state();
  CHECK(same_bits(std::vector<double>{st.time, st.dt}, std::vector<double>{want.time, want.dt}));
  CHECK(st.step == want.step);
  CHECK(st.next_snapshot == want.next_snapshot);
  CHECK(st.scalars == want.scalars);  // exact double equality
  CHECK(st.counters == want.counters);
  CHECK(st.config_yaml == want.config_yaml);
}

TEST_CASE("checkpoint reader refuses damaged and foreign files", "[io][checkpoint]") {
  const std::string path = test::scratch_path("bad_restart.h5");
  const ParticleStore s = test::make_store({0, 0, 1});
  std::string msg;
  SECTION("missing file") {
    msg = error_message([&] { read_checkpoint(path + ".absent", nullptr); });
    CHECK(contains(msg, "cannot read checkpoint '" + path + ".absent': file not found"));
  }
  SECTION("truncated file") {
    write_checkpoint(path, s, sample_state());
    std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "not an HDF5 file (or truncated/corrupt)"));
  }
  SECTION("a snapshot is not a checkpoint") {
    write_snapshot(path, s, SnapshotMeta{});
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "is not an mpsph checkpoint"));
  }
  SECTION("other format version") {
    write_checkpoint(path, s, sample_state());
    test::edit_file(path, [](hid_t f) {
      const int32_t v = kCheckpointVersion + 1;
      const hid_t a = H5Aopen(f, "mpsph_checkpoint_version", H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_INT32, &v);
      H5Aclose(a);
    });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "has format version 3; this build reads version 2"));
  }
  SECTION("missing field") {
    write_checkpoint(path, s, sample_state());
    test::edit_file(path, [](hid_t f) { H5Ldelete(f, "Particles/u", H5P_DEFAULT); });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "missing dataset /Particles/u"));
  }
  SECTION("field in a converted type") {
    write_checkpoint(path, s, sample_state());
    const double h[3] = {0.1, 0.2, 0.3};  // h is float in the store: a double would be rounded
    test::edit_file(
        path, [&](hid_t f) { test::replace_dataset(f, "Particles/h", H5T_NATIVE_DOUBLE, {3}, h); });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "/Particles/h does not hold 4-byte values"));
  }
  SECTION("field of the wrong length") {
    write_checkpoint(path, s, sample_state());
    const uint64_t ids[2] = {1, 2};
    test::edit_file(path, [&](hid_t f) {
      test::replace_dataset(f, "Particles/id", H5T_NATIVE_UINT64, {2}, ids);
    });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "/Particles/id has 2 rows but NumParticles = 3"));
  }
  SECTION("a damaged particle count is refused before any allocation") {
    // Found by fuzz/checkpoint_fuzz.cpp: NumParticles sized the store first (412 GB asked for).
    write_checkpoint(path, s, sample_state());
    test::edit_file(path, [](hid_t f) {
      const uint64_t huge = uint64_t{1} << 50;
      const hid_t a = H5Aopen(f, "NumParticles", H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_UINT64, &huge);
      H5Aclose(a);
    });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "/Particles/type has 3 rows but NumParticles = 1125899906842624"));
  }
  SECTION("particle type out of range") {
    write_checkpoint(path, s, sample_state());
    const uint8_t types[3] = {0, 9, 1};
    test::edit_file(path, [&](hid_t f) {
      test::replace_dataset(f, "Particles/type", H5T_NATIVE_UINT8, {3}, types);
    });
    msg = error_message([&] { read_checkpoint(path, nullptr); });
    CHECK(contains(msg, "/Particles/type has type 9 at particle 1"));
  }
  SECTION("unwritable destination") {
    const std::string bad = test::scratch_path("no_such_dir") + "/restart.h5";
    msg = error_message([&] { write_checkpoint(bad, s, sample_state()); });
    CHECK(contains(msg, "cannot write checkpoint '" + bad + "': No such file or directory"));
  }
  INFO(msg);
  CHECK(contains(msg, path.substr(0, path.rfind('/'))));  // every message names the file
}
