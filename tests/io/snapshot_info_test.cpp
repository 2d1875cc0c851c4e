// `mpsph info`: the summary must report the counts, masses, ranges and units that are in the file.
#include "io/snapshot_info.hpp"

#include <sstream>

#include "catch.hpp"
#include "core/constants.hpp"
#include "io/io_test_support.hpp"
#include "io/snapshot.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

// Whitespace-separated tokens of the first line of `text` that starts with `prefix`.
std::vector<std::string> line_tokens(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    return tokens;
  }
  return {};
}

// The first line containing `part`, after the first line containing `after`.
std::string line_with(const std::string& text, const std::string& after, const std::string& part) {
  const std::size_t start = text.find(after);
  if (start == std::string::npos) return "";
  const std::size_t at = text.find(part, start);
  if (at == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

// 4 gas of mass 0.25 with x in [-2, 5], 2 dark-matter particles of mass 3.
ParticleStore known_store() {
  ParticleStore s = test::make_store({0, 0, 0, 0, 1, 1});
  for (std::size_t i = 0; i < 6; ++i) {
    s.mass[i] = i < 4 ? 0.25 : 3.0;
    s.pos[i] = {-2.0 + i, 0.5, 1.0};  // x: -2, -1, 0, 1 (gas), 2, 3 (dm)
  }
  s.pos[3].x = 5.0;
  return s;
}

}  // namespace

TEST_CASE("snapshot info reports counts, masses, ranges and units", "[io][info]") {
  const std::string path = test::scratch_path("info.h5");
  SnapshotMeta meta;
  meta.time = 0.75;
  meta.units = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  write_snapshot(path, known_store(), meta);
  const std::string info = snapshot_info(path);
  INFO(info);

  CHECK(contains(info, "file      " + path));
  CHECK(contains(info, "time      0.75 = "));
  CHECK(contains(info, "length 3.08568e+21 cm"));
  // Type table: count, total mass, MassTable (masses are per particle, so MassTable is 0).
  CHECK(line_tokens(info, "0     gas") == std::vector<std::string>{"0", "gas", "4", "1", "0"});
  CHECK(line_tokens(info, "1     dark matter") ==
        std::vector<std::string>{"1", "dark", "matter", "2", "6", "0"});
  CHECK(line_tokens(info, "4     new stars") ==
        std::vector<std::string>{"4", "new", "stars", "0", "0", "0"});
  CHECK(contains(info, "/PartType0 (gas, 4 particles)"));
  CHECK(contains(info, "/PartType1 (dark matter, 2 particles)"));
  CHECK_FALSE(contains(info, "/PartType4"));

  // Coordinates of the gas: all components pooled, min -2 (x), max 5 (x), mean over 12 values
  // (x: -2 -1 0 5, y: 0.5 x4, z: 1 x4) = (2 + 2 + 4) / 12.
  const std::vector<std::string> coords = line_tokens(info, "  Coordinates");
  REQUIRE(coords.size() >= 8);
  CHECK(coords[1] + coords[2] + coords[3] == "(4x3)");
  CHECK(coords[4] == "float64");
  CHECK(std::stod(coords[5]) == -2.0);
  CHECK(std::stod(coords[6]) == 5.0);
  CHECK(std::stod(coords[7]) == Approx(8.0 / 12.0).epsilon(1e-6));  // printed to 6 digits
  CHECK(contains(line_with(info, "/PartType0", "Coordinates"), "L (1 = 3.0857e+21 cgs)"));
  CHECK(contains(line_with(info, "/PartType0", "Density"), "float32"));
  CHECK(contains(line_with(info, "/PartType0", "Density"), "L^-3 M (1 = 6.7"));
  CHECK(contains(line_with(info, "/PartType1", "ParticleIDs"), "uint64"));
}

TEST_CASE("snapshot info reports N-body units and MassTable masses", "[io][info]") {
  const std::string path = test::scratch_path("info_nbody.h5");
  SnapshotMeta meta;
  meta.units = UnitSystem::nbody_units();
  write_snapshot(path, known_store(), meta);
  // As other tools write dark matter: no Masses dataset, the mass in MassTable.
  test::edit_file(path, [](hid_t f) {
    H5Ldelete(f, "PartType1/Masses", H5P_DEFAULT);
    const double table[6] = {0, 0.5, 0, 0, 0, 0};
    // Opened through the group: H5Aopen_by_name + H5Awrite fails on densely stored attributes
    // in HDF5 1.10.8 ("can't locate open attribute").
    const hid_t g = H5Gopen2(f, "Header", H5P_DEFAULT);
    const hid_t a = H5Aopen(g, "MassTable", H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, table);
    H5Aclose(a);
    H5Gclose(g);
  });
  const std::string info = snapshot_info(path);
  INFO(info);
  CHECK(contains(info, "units     N-body (G = 1)"));
  CHECK(contains(info, "time      0 (code units)"));
  // 2 particles x MassTable 0.5.
  CHECK(line_tokens(info, "1     dark matter") ==
        std::vector<std::string>{"1", "dark", "matter", "2", "1", "0.5"});
  CHECK(contains(line_with(info, "/PartType0", "Coordinates"), "L (N-body)"));
}

TEST_CASE("snapshot info names a missing file", "[io][info]") {
  const std::string path = test::scratch_path("absent.h5");
  const std::string msg = test::error_message([&] { snapshot_info(path); });
  CHECK(msg == "cannot read snapshot '" + path + "': file not found");
}
