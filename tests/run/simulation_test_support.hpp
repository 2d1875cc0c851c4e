// Helpers for tests that run whole simulations: scratch output directories, run options from an
// inline YAML config, energy.csv rows, and a run's output files as text.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "run/simulation.hpp"

namespace mpsph::test {

// The whole content of the file at `path` (empty when it cannot be read): compares a run's CSV
// files and logs byte for byte.
inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

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

// Quiet run options that continue the run in `dir` from its checkpoint.h5. run.max_steps = 0
// overrides the limit that a checkpoint of a run stopped by max_steps still carries.
inline RunOptions restart_options(const std::string& dir,
                                  std::optional<std::string> device = std::nullopt) {
  RunOptions o;
  o.restart_path = dir + "/checkpoint.h5";
  o.overrides = {"run.max_steps=0"};
  o.device = std::move(device);
  o.quiet = true;
  return o;
}

struct EnergyRow {
  double t, ek, eu, ew, er, etot, rel;  // er: E_radiated (0 when the run has no cooling)
  long step;                            // (sub)steps taken when the row was written
};

// The data rows of <dir>/energy.csv (time, kinetic, thermal, potential, radiated, total, relative
// error, step), found by their column names: the module energy columns depend on the run.
inline std::vector<EnergyRow> read_energy(const std::string& dir) {
  std::ifstream f(dir + "/energy.csv");
  std::vector<EnergyRow> rows;
  std::vector<std::string> names;
  auto column = [&names](const std::string& name) -> long {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == name) return long(k);
    return -1;
  };
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (line.rfind("step", 0) == 0) {
      names = cells;
      continue;
    }
    auto get = [&](const char* name) {
      const long k = column(name);
      return k < 0 ? 0.0 : std::stod(cells.at(std::size_t(k)));
    };
    rows.push_back({get("time"), get("E_kinetic"), get("E_thermal"), get("E_potential"),
                    get("E_radiated"), get("E_total"), get("rel_error"), long(get("step"))});
  }
  return rows;
}

}  // namespace mpsph::test
