// The Sutherland & Dopita (1993) CIE cooling tables (data/cooling_tables/SD93_CIE, provenance in
// data/cooling_tables/README.md): reading, validation, and the one-grid layout the kernels use.
#pragma once

#include <string>
#include <vector>

#include "cooling/cooling_kern.hpp"

namespace mpsph {

// One SD93 .cie file: its data rows (columns as named in the file).
struct Sd93File {
  std::vector<double> log_T;            // log(T) [K]
  std::vector<double> ne, nt;           // n_e, n_t per n_H (the file's nH column is 1)
  std::vector<double> log_lambda_norm;  // log(lambda norm) = log Lambda_N [erg cm^3 s^-1]
};

// Reads and validates one file: a title line, the header with the twelve SD93 column names, then
// rows of twelve finite numbers with nH = 1, n_e, n_t > 0 and log(T) increasing in steps of 0.05
// (blank lines and lines of tabs are skipped). Throws mpsph::Error naming the file and the line.
Sd93File read_sd93_file(const std::string& path);

// All eight metallicities on the grid log T = 4.00 (0.05) 8.50.
struct CoolingTable {
  std::string dir;          // where the files were read from
  std::vector<double> feh;  // -inf (mzero), -3, -2, -1.5, -1, -0.5, 0, +0.5
  int n_logT = 0;
  double logT_min = 0.0, dlogT = 0.0;
  std::vector<double> log_lambda_n, log_ne, log_nt;  // [iz * n_logT + it]

  // Raw-pointer view for the kernels (valid while this table lives and is not modified).
  CoolingTableView view() const;
};

// Loads mzero.cie, m-30.cie, m-20.cie, m-15.cie, m-10.cie, m-05.cie, m-00.cie, m+05.cie from `dir`
// and checks each covers log T = 4.00..8.50 (m+05.cie: 4.10..8.50, as published). The two rows
// m+05.cie lacks are filled from the solar table times the ratio (+0.5 / solar) at log T = 4.10,
// per column. Throws mpsph::Error naming the file (and line) of any problem.
CoolingTable load_sd93_tables(const std::string& dir);

// The table directory: `configured` when not empty (must be a directory), else the first of
// <exe>/../share/mpsph/cooling_tables/SD93_CIE (installed), <exe>/../data/cooling_tables/SD93_CIE,
// <MPSPH_SOURCE_DIR>/data/cooling_tables/SD93_CIE that holds mzero.cie. Throws mpsph::Error listing
// the places searched.
std::string find_cooling_table_dir(const std::string& configured);

}  // namespace mpsph
