// One named column of energy.csv (the module columns that test::read_energy does not carry) or of
// another CSV file of a run.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mpsph::test {

// Column `name` of every data row of a CSV file of the run (energy.csv, sfr.csv, sinks.csv):
// comment lines start with '#', a column line with a name (energy.csv "step,...", the module
// files "time,..."); empty when there is no such column.
inline std::vector<double> csv_column(const std::string& path, const std::string& name) {
  std::ifstream f(path);
  std::string line;
  long col = -1;
  std::vector<double> out;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (line.rfind("step", 0) == 0 || line.rfind("time", 0) == 0) {
      col = -1;
      for (std::size_t k = 0; k < cells.size(); ++k)
        if (cells[k] == name) col = long(k);
      continue;
    }
    if (col >= 0) out.push_back(std::stod(cells.at(std::size_t(col))));
  }
  return out;
}

// Column `name` of every data row of <dir>/energy.csv.
inline std::vector<double> energy_column(const std::string& dir, const std::string& name) {
  return csv_column(dir + "/energy.csv", name);
}

}  // namespace mpsph::test
