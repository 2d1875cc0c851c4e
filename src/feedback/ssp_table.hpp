// Building the SSP table (ssp_table_kern.hpp) on the host from the direct integrals
// (ssp_release_kern.hpp), and loading the WW95 yield tables it may need.
#pragma once

#include <string>
#include <vector>

#include "feedback/ssp_model.hpp"
#include "feedback/ssp_table_kern.hpp"

namespace mpsph {

// The table grid: the mass axis from 0.1 to 100 Msun in cells of at most kSspTableDlogM dex
// between the break masses 0.1, 1, 1.5, 8, 40, 100 Msun; the metallicity axis one node for the
// RVN96 yields (the mass-side release does not depend on Z), and for WW95 the clipped range's ends
// [7e-5, 0.03] and the WW95 tables' Z = 0.02 x 10^{-2, -1, 0}.
constexpr double kSspTableDlogM = 0.002;

class SspTable {
 public:
  // Integrates `model` at every grid point (OpenMP). model.ww95 must be set for yields ww95;
  // the table keeps its own copy of the WW95 tables.
  explicit SspTable(const SspModel& model);
  SspTable(const SspTable&) = delete;
  SspTable& operator=(const SspTable&) = delete;

  const SspModel& model() const { return model_; }
  // Raw view for the kernels (valid while this table lives).
  const SspTableView& view() const { return view_; }
  const std::vector<double>& values() const { return values_; }

 private:
  SspModel model_;
  Ww95View ww95_{};
  std::vector<double> values_;
  SspTableView view_{};
};

// Reads the WW95 O and Fe tables FeH<x>_explosive_{o,fe}.dat for log10(Z/Zsun) = -4, -2, -1, 0
// from `dir` (every ejected isotope summed: o16 + o17 + o18, fe54 + fe56 + fe57 + fe58). Throws
// mpsph::Error naming the file and line of any problem (missing file, a row that is not numbers,
// masses that differ between files or do not increase).
Ww95View load_ww95_tables(const std::string& dir);

// The WW95 directory: `configured` when not empty, else the first of
// <exe>/../share/mpsph/yields/WW95, <exe>/../data/yields/WW95, <MPSPH_SOURCE_DIR>/data/yields/WW95
// that holds FeH0_explosive_o.dat. Throws mpsph::Error listing the places searched.
std::string find_ww95_dir(const std::string& configured);

}  // namespace mpsph
