// Helpers for tests that run whole simulations: scratch output directories, run options from an
// inline YAML config, and energy.csv rows.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/simulation.hpp"

namespace mpsph::test {

// An empty directory <build>/test_output/<name>.
inline std::string scratch_dir(const std::string& name) {
  const auto d = std::filesystem::path(MPSPH_BINARY_DIR) / "test_output" / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

// Writes `yaml` to <dir>/config.yaml and returns quiet run options writing into `dir`.
inline RunOptions run_options(const std::string& dir, const std::string& yaml,
                              std::vector<std::string> overrides = {},
                              std::optional<std::string> device = std::nullopt) {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path) << yaml;
  RunOptions o;
  o.config_path = path;
  o.output_dir = dir;
  o.device = std::move(device);
  o.overrides = std::move(overrides);
  o.quiet = true;
  return o;
}

struct EnergyRow {
  double t, ek, eu, ew, er, etot, rel;  // er: E_radiated
};

// The data rows of <dir>/energy.csv (time, kinetic, thermal, potential, radiated, total, relative
// error).
inline std::vector<EnergyRow> read_energy(const std::string& dir) {
  std::ifstream f(dir + "/energy.csv");
  std::vector<EnergyRow> rows;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("step", 0) == 0) continue;
    std::vector<double> v;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    rows.push_back({v[1], v[3], v[4], v[5], v[6], v[7], v[8]});
  }
  return rows;
}

}  // namespace mpsph::test
