// Snapshots: bit-exact round trips, files from other GADGET-format tools, and every bad input the
// reader must refuse with a message naming the file, the dataset and the problem.
#include "io/snapshot.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "catch.hpp"
#include "core/constants.hpp"
#include "io/io_test_support.hpp"

using namespace mpsph;
using mpsph::test::contains;
using mpsph::test::error_message;
using mpsph::test::same_bits;

namespace {

// Gas, dark matter and new stars interleaved: the writer must group them by type.
std::vector<uint8_t> mixed_types(std::size_t n) {
  std::vector<uint8_t> t(n);
  const uint8_t cycle[] = {kGas, kDarkMatter, kNewStar};
  for (std::size_t i = 0; i < n; ++i) t[i] = cycle[i % 3];
  return t;
}

SnapshotMeta galaxy_meta() {
  SnapshotMeta m;
  m.time = 0.12345678901234567;
  m.step = 4321;
  m.units = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  m.box.periodic = true;
  m.box.lo = {-1.5, -2.0, -3.0};
  m.box.size = {3.0, 4.0, 6.0};
  m.config_yaml = "units:\n  length: kpc\nsph:\n  n_neighbours: 64\n";
  m.flag_cooling = true;
  m.flag_metals = true;
  return m;
}

// The gas-only field `v` as the reader must return it: the gas values, zero for other types.
template <class T>
std::vector<T> gas_only(std::vector<T> v, std::size_t n_gas) {
  for (std::size_t i = n_gas; i < v.size(); ++i) v[i] = T{};
  return v;
}

// Writes a small GADGET-2-style IC file with the raw HDF5 API, as other tools do: 32-bit counts,
// dark matter mass only in MassTable, no velocities, gas ids as uint32, u as float32, and the
// dark-matter Coordinates in float32 when `float_coords`.
void write_foreign_ic(const std::string& path, bool float_coords) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t header = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto attr = [&](const char* name, hid_t type, hsize_t n, const void* data) {
    const hid_t space = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
    const hid_t a = H5Acreate2(header, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, data);
    H5Aclose(a);
    H5Sclose(space);
  };
  const int32_t numpart[6] = {2, 3, 0, 0, 0, 0};
  const uint32_t numtotal[6] = {2, 3, 0, 0, 0, 0};
  const double mass_table[6] = {0, 0.25, 0, 0, 0, 0};
  const double time = 1.5, box = 0.0;
  const int32_t nfiles = 1;
  attr("NumPart_ThisFile", H5T_NATIVE_INT32, 6, numpart);
  attr("NumPart_Total", H5T_NATIVE_UINT32, 6, numtotal);
  attr("MassTable", H5T_NATIVE_DOUBLE, 6, mass_table);
  attr("Time", H5T_NATIVE_DOUBLE, 0, &time);
  attr("BoxSize", H5T_NATIVE_DOUBLE, 0, &box);
  attr("NumFilesPerSnapshot", H5T_NATIVE_INT32, 0, &nfiles);
  H5Gclose(header);

  auto dataset = [&](const char* name, hid_t type, std::vector<hsize_t> dims, const void* data) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Sclose(space);
  };
  H5Gclose(H5Gcreate2(f, "PartType0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  const double gas_pos[6] = {0.1, 0.2, 0.3, -0.1, -0.2, -0.3};
  const double gas_mass[2] = {0.5, 0.75};
  const float gas_u[2] = {1.5f, 2.5f};
  const uint32_t gas_ids[2] = {10, 11};
  dataset("PartType0/Coordinates", H5T_NATIVE_DOUBLE, {2, 3}, gas_pos);
  dataset("PartType0/Masses", H5T_NATIVE_DOUBLE, {2}, gas_mass);
  dataset("PartType0/InternalEnergy", H5T_NATIVE_FLOAT, {2}, gas_u);
  dataset("PartType0/ParticleIDs", H5T_NATIVE_UINT32, {2}, gas_ids);
  const float dm_pos_f[9] = {0.1f, 1.1f, 2.1f, 3.1f, 4.1f, 5.1f, 6.1f, 7.1f, 8.1f};
  const double dm_pos_d[9] = {0.1, 1.1, 2.1, 3.1, 4.1, 5.1, 6.1, 7.1, 8.1};
  if (float_coords)
    dataset("PartType1/Coordinates", H5T_NATIVE_FLOAT, {3, 3}, dm_pos_f);
  else
    dataset("PartType1/Coordinates", H5T_NATIVE_DOUBLE, {3, 3}, dm_pos_d);
  H5Fclose(f);
}

}  // namespace

TEST_CASE("snapshot round trip is bit-exact for doubles and exact for ids and floats",
          "[io][snapshot]") {
  const std::string path = test::scratch_path("roundtrip.h5");
  const ParticleStore s = test::make_store(mixed_types(61));
  const SnapshotMeta meta = galaxy_meta();
  write_snapshot(path, s, meta);
  // Written under "<path>.tmp" and renamed: nothing of the temp file may remain.
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

  SnapshotMeta back;
  const ParticleStore r = read_snapshot(path, &back);
  ParticleStore expect = s;
  expect.sort_by_type();  // the reader returns particles sorted by type, in file order per type
  const std::size_t n_gas = expect.n_gas();
  REQUIRE(r.size() == s.size());
  REQUIRE(n_gas == 21);
  CHECK(r.n_gas() == n_gas);
  CHECK(same_bits(r.type, expect.type));
  CHECK(same_bits(r.pos, expect.pos));
  CHECK(same_bits(r.vel, expect.vel));
  CHECK(same_bits(r.mass, expect.mass));
  CHECK(same_bits(r.id, expect.id));
  CHECK(same_bits(r.u, gas_only(expect.u, n_gas)));
  CHECK(same_bits(r.h, gas_only(expect.h, n_gas)));
  CHECK(same_bits(r.rho, gas_only(expect.rho, n_gas)));
  // Fields outside the always-written set are not in the file: they come back zero.
  CHECK(same_bits(r.acc, std::vector<Vec3d>(r.size(), Vec3d{0, 0, 0})));

  CHECK(same_bits(std::vector<double>{back.time}, std::vector<double>{meta.time}));
  CHECK(back.step == meta.step);
  CHECK(back.units_in_file);
  CHECK_FALSE(back.units.nbody);
  CHECK(same_bits(std::vector<double>{back.units.length_cgs, back.units.mass_cgs,
                                      back.units.velocity_cgs, back.units.G},
                  std::vector<double>{meta.units.length_cgs, meta.units.mass_cgs,
                                      meta.units.velocity_cgs, meta.units.G}));
  CHECK(back.box.periodic);
  CHECK(same_bits(std::vector<Vec3d>{back.box.lo, back.box.size},
                  std::vector<Vec3d>{meta.box.lo, meta.box.size}));
  CHECK(back.config_yaml == meta.config_yaml);
  CHECK(back.flag_cooling);
  CHECK(back.flag_metals);
  CHECK_FALSE(back.flag_sfr);
}

TEST_CASE("snapshot keeps N-body units and a long config", "[io][snapshot]") {
  const std::string path = test::scratch_path("nbody.h5");
  SnapshotMeta meta;
  meta.units = UnitSystem::nbody_units();
  // 200 KB: above the 64 KiB limit of compact attribute storage, so this needs dense storage.
  meta.config_yaml = std::string(200000, 'x');
  write_snapshot(path, test::make_store({kGas, kGas}), meta);
  SnapshotMeta back;
  read_snapshot(path, &back);
  CHECK(back.units.nbody);
  CHECK(back.units.G == 1.0);
  CHECK_FALSE(back.box.periodic);
  CHECK(back.config_yaml == meta.config_yaml);
}

TEST_CASE("snapshot leaves out particles removed since the last order stage", "[io][snapshot]") {
  // A stage (a cloud merger) marked the middle cloud kRemoved; the snapshot of that step holds
  // the other two, under NumPart_ThisFile[2] = 2.
  const std::string path = test::scratch_path("removed.h5");
  ParticleStore s = test::make_store({kCloud, kCloud, kCloud});
  s.type[1] = kRemoved;
  s.mass[1] = 0.0;
  write_snapshot(path, s, SnapshotMeta{});
  const ParticleStore back = read_snapshot(path, nullptr);
  REQUIRE(back.size() == 2);
  CHECK(back.id[0] == s.id[0]);
  CHECK(back.id[1] == s.id[2]);
  CHECK(back.type[0] == kCloud);
}

TEST_CASE("snapshot writes requested extra fields and rejects unknown ones", "[io][snapshot]") {
  const std::string path = test::scratch_path("extras.h5");
  const ParticleStore s = test::make_store(mixed_types(30));
  write_snapshot(path, s, galaxy_meta(), {"Acceleration", "Potential", "DivV", "NumNeighbours"});
  const ParticleStore r = read_snapshot(path);
  ParticleStore expect = s;
  expect.sort_by_type();
  CHECK(same_bits(r.acc, expect.acc));
  CHECK(same_bits(r.pot, expect.pot));
  CHECK(same_bits(r.divv, gas_only(expect.divv, expect.n_gas())));
  CHECK(same_bits(r.nngb, gas_only(expect.nngb, expect.n_gas())));
  CHECK(same_bits(r.curlv, std::vector<float>(r.size(), 0.0f)));  // not requested

  const std::vector<std::string> optional = optional_snapshot_fields();
  CHECK(std::find(optional.begin(), optional.end(), "Acceleration") != optional.end());
  CHECK(std::find(optional.begin(), optional.end(), "Coordinates") == optional.end());
  const std::string msg =
      error_message([&] { write_snapshot(path, s, galaxy_meta(), {"NoSuchField"}); });
  INFO(msg);
  CHECK(contains(msg, "unknown snapshot field 'NoSuchField'"));
  CHECK(contains(msg, "Acceleration"));  // the message lists the valid names
}

TEST_CASE("snapshot reader takes a MassTable-only file from another tool", "[io][snapshot]") {
  const std::string path = test::scratch_path("foreign_ic.h5");
  write_foreign_ic(path, false);
  SnapshotMeta meta;
  const ParticleStore r = read_snapshot(path, &meta);
  REQUIRE(r.size() == 5);
  CHECK(r.type == std::vector<uint8_t>{0, 0, 1, 1, 1});
  CHECK(r.mass == std::vector<double>{0.5, 0.75, 0.25, 0.25, 0.25});
  // Gas ids from the file (uint32 widened); dark matter has none: 1..N in file order.
  CHECK(r.id == std::vector<uint64_t>{10, 11, 3, 4, 5});
  CHECK(r.u == std::vector<double>{1.5, 2.5, 0, 0, 0});  // float32 1.5, 2.5 are exact doubles
  CHECK(r.pos[1].z == -0.3);
  CHECK(r.pos[4].y == 7.1);
  CHECK(same_bits(r.vel, std::vector<Vec3d>(5, Vec3d{0, 0, 0})));  // Velocities absent -> 0
  CHECK(same_bits(r.h, std::vector<float>(5, 0.0f)));  // SmoothingLength absent -> to compute
  CHECK(meta.time == 1.5);
  CHECK_FALSE(meta.units_in_file);
  CHECK_FALSE(meta.box.periodic);  // BoxSize 0 = open
}

TEST_CASE("snapshot reader converts float32 Coordinates", "[io][snapshot]") {
  const std::string path = test::scratch_path("float_coords.h5");
  write_foreign_ic(path, true);
  const ParticleStore r = read_snapshot(path);
  REQUIRE(r.size() == 5);
  // float32 -> float64 is exact: each coordinate is the double value of the stored float.
  CHECK(r.pos[2].x == static_cast<double>(0.1f));
  CHECK(r.pos[3].y == static_cast<double>(4.1f));
  CHECK(r.pos[4].z == static_cast<double>(8.1f));
  CHECK(r.pos[4].z != 8.1);  // and not silently the decimal value
}

TEST_CASE("snapshot reader refuses bad inputs with a message naming the problem",
          "[io][snapshot]") {
  const std::string path = test::scratch_path("bad.h5");
  // 5 gas, 3 dark matter.
  ParticleStore s = test::make_store({0, 0, 0, 0, 0, 1, 1, 1});
  const SnapshotMeta meta = galaxy_meta();
  auto write_then_read = [&](const ParticleStore& store) {
    write_snapshot(path, store, meta);
    return error_message([&] { read_snapshot(path); });
  };
  std::string msg;

  SECTION("missing file") {
    msg = error_message([&] { read_snapshot(path + ".absent"); });
    CHECK(contains(msg, "'" + path + ".absent'"));
    CHECK(contains(msg, "file not found"));
  }
  SECTION("not an HDF5 file") {
    std::ofstream(path) << "this is not HDF5\n";
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "'" + path + "'"));
    CHECK(contains(msg, "not an HDF5 file"));
  }
  SECTION("missing /Header") {
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) { H5Ldelete(f, "Header", H5P_DEFAULT); });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "missing /Header"));
  }
  SECTION("missing NumPart") {
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) {
      H5Adelete_by_name(f, "Header", "NumPart_ThisFile", H5P_DEFAULT);
      H5Adelete_by_name(f, "Header", "NumPart_Total", H5P_DEFAULT);
    });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "/Header has no NumPart_ThisFile"));
  }
  SECTION("missing PartType group") {
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) { H5Ldelete(f, "PartType1", H5P_DEFAULT); });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "missing group /PartType1"));
  }
  SECTION("missing Coordinates") {
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) { H5Ldelete(f, "PartType0/Coordinates", H5P_DEFAULT); });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "missing dataset /PartType0/Coordinates"));
  }
  SECTION("dataset length inconsistent with NumPart") {
    write_snapshot(path, s, meta);
    const double four[4] = {1, 1, 1, 1};
    test::edit_file(path, [&](hid_t f) {
      test::replace_dataset(f, "PartType0/Masses", H5T_NATIVE_DOUBLE, {4}, four);
    });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "/PartType0/Masses has 4 rows"));
    CHECK(contains(msg, "NumPart_ThisFile[0] = 5"));
  }
  SECTION("a damaged particle count is refused before any allocation") {
    // Found by fuzz/ic_reader_fuzz.cpp: the header's count sized the store first.
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) {
      uint64_t counts[6] = {uint64_t{1} << 50, 3, 0, 0, 0, 0};
      const hid_t g = H5Gopen2(f, "Header", H5P_DEFAULT);
      const hid_t a = H5Aopen(g, "NumPart_ThisFile", H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_UINT64, counts);
      H5Aclose(a);
      H5Gclose(g);
    });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg,
                   "/PartType0/Coordinates has 5 rows but /Header NumPart_ThisFile[0] = "
                   "1125899906842624"));
  }
  SECTION("Coordinates not N x 3") {
    write_snapshot(path, s, meta);
    const double six[6] = {0, 1, 2, 3, 4, 5};
    test::edit_file(path, [&](hid_t f) {
      test::replace_dataset(f, "PartType1/Coordinates", H5T_NATIVE_DOUBLE, {3, 2}, six);
    });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "/PartType1/Coordinates has shape (3 x 2)"));
    CHECK(contains(msg, "(N x 3)"));
  }
  SECTION("integer Coordinates") {
    write_snapshot(path, s, meta);
    const int32_t nine[9] = {};
    test::edit_file(path, [&](hid_t f) {
      test::replace_dataset(f, "PartType1/Coordinates", H5T_NATIVE_INT32, {3, 3}, nine);
    });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "/PartType1/Coordinates must hold floating-point values"));
  }
  SECTION("NaN in Coordinates") {
    s.pos[2].y = std::numeric_limits<double>::quiet_NaN();
    msg = write_then_read(s);
    CHECK(contains(msg, "/PartType0/Coordinates has NaN at particle 2"));
  }
  SECTION("inf in Velocities") {
    s.vel[6].z = -std::numeric_limits<double>::infinity();  // dark-matter particle 1
    msg = write_then_read(s);
    CHECK(contains(msg, "/PartType1/Velocities has inf at particle 1"));
  }
  SECTION("NaN in Masses") {
    s.mass[7] = std::numeric_limits<double>::quiet_NaN();
    msg = write_then_read(s);
    CHECK(contains(msg, "/PartType1/Masses has NaN at particle 2"));
  }
  SECTION("inf in InternalEnergy") {
    s.u[3] = std::numeric_limits<double>::infinity();
    msg = write_then_read(s);
    CHECK(contains(msg, "/PartType0/InternalEnergy has inf at particle 3"));
  }
  SECTION("non-positive mass") {
    s.mass[4] = 0.0;
    msg = write_then_read(s);
    CHECK(contains(msg, "/PartType0/Masses has non-positive mass 0"));
    CHECK(contains(msg, "at particle 4"));
  }
  SECTION("MassTable 0 and no Masses") {
    write_snapshot(path, s, meta);
    test::edit_file(path, [](hid_t f) { H5Ldelete(f, "PartType1/Masses", H5P_DEFAULT); });
    msg = error_message([&] { read_snapshot(path); });
    CHECK(contains(msg, "/PartType1/Masses is missing"));
    CHECK(contains(msg, "MassTable[1] = 0"));
  }
  INFO(msg);
  // Every message names the file.
  CHECK(contains(msg, path));
}

TEST_CASE("snapshot writer reports an unwritable destination", "[io][snapshot]") {
  const ParticleStore s = test::make_store({0, 1});
  SECTION("missing directory") {
    const std::string path = test::scratch_path("no_such_dir") + "/snap.h5";
    const std::string msg = error_message([&] { write_snapshot(path, s, SnapshotMeta{}); });
    INFO(msg);
    CHECK(contains(msg, "cannot write snapshot '" + path + "': No such file or directory"));
  }
  SECTION("parent is a regular file") {
    const std::string file = test::scratch_path("plain_file");
    std::ofstream(file) << "x";
    const std::string path = file + "/snap.h5";
    const std::string msg = error_message([&] { write_snapshot(path, s, SnapshotMeta{}); });
    INFO(msg);
    CHECK(contains(msg, "cannot write snapshot '" + path + "': Not a directory"));
  }
}

TEST_CASE("snapshot replaces an existing file atomically", "[io][snapshot]") {
  const std::string path = test::scratch_path("replace.h5");
  write_snapshot(path, test::make_store({0, 0, 0}), SnapshotMeta{});
  write_snapshot(path, test::make_store({1, 1}), SnapshotMeta{});
  CHECK(read_snapshot(path).count_by_type()[kDarkMatter] == 2);
  CHECK(read_snapshot(path).n_gas() == 0);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

// Writes the sample file that tests/python/test_snapshot_layout.py checks with h5py (that script
// runs this test case itself: `mpsph_unit_tests "[io][sample]"`).
TEST_CASE("sample snapshot for the h5py layout check", "[io][sample]") {
  const std::string dir = std::string(MPSPH_BINARY_DIR) + "/test_output";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/sample_snapshot.h5";
  // 10 gas, 7 dark matter, 4 clouds, 3 new stars; type 3 and 5 absent.
  std::vector<uint8_t> types;
  const std::pair<uint8_t, int> groups[] = {
      {kGas, 10}, {kDarkMatter, 7}, {kCloud, 4}, {kNewStar, 3}};
  for (const auto& [type, n] : groups) types.insert(types.end(), n, type);
  write_snapshot(path, test::make_store(types), galaxy_meta(), {"Acceleration", "Potential"});
  const auto counts = read_snapshot(path).count_by_type();
  CHECK(counts[kGas] == 10);
  CHECK(counts[kDarkMatter] == 7);
  CHECK(counts[kCloud] == 4);
  CHECK(counts[kOldStar] == 0);
  CHECK(counts[kNewStar] == 3);
  CHECK(counts[kSink] == 0);
}
