#include "cooling/cooling_table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "core/error.hpp"

namespace mpsph {

namespace {

const char* const kColumns[12] = {"log(T)",
                                  "ne",
                                  "nH",
                                  "nt",
                                  "log(lambda net)",
                                  "log(lambda norm)",
                                  "log(U)",
                                  "log(taucool)",
                                  "P12",
                                  "rho24",
                                  "Ci",
                                  "mubar"};
constexpr int kColNe = 1, kColNH = 2, kColNt = 3, kColLambdaNorm = 5;

constexpr double kLogTStep = 0.05;
constexpr double kLogTFirst = 4.0;
constexpr double kLogTLast = 8.5;
constexpr double kGridTol = 1e-6;  // the files print log T with two decimals

struct TableFile {
  const char* name;
  double feh;
  double log_T_first;  // as published
};

const TableFile kFiles[] = {
    {"mzero.cie", -std::numeric_limits<double>::infinity(), 4.0},
    {"m-30.cie", -3.0, 4.0},
    {"m-20.cie", -2.0, 4.0},
    {"m-15.cie", -1.5, 4.0},
    {"m-10.cie", -1.0, 4.0},
    {"m-05.cie", -0.5, 4.0},
    {"m-00.cie", 0.0, 4.0},
    {"m+05.cie", 0.5, 4.1},  // no 4.00, 4.05 rows in the original (charge-exchange problems)
};

std::string fmt2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

std::vector<std::string> split(const std::string& line, bool on_tabs) {
  std::vector<std::string> out;
  if (on_tabs) {
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, '\t')) {
      const auto b = cell.find_first_not_of(" \r");
      const auto e = cell.find_last_not_of(" \r");
      if (b != std::string::npos) out.push_back(cell.substr(b, e - b + 1));
    }
  } else {
    std::istringstream in(line);
    std::string tok;
    while (in >> tok) out.push_back(tok);
  }
  return out;
}

std::string column_list() {
  std::string s;
  for (const char* c : kColumns) s += (s.empty() ? "" : ", ") + std::string(c);
  return s;
}

}  // namespace

Sd93File read_sd93_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cooling table " + path + ": cannot open the file");
  Sd93File f;
  std::string line;
  int line_no = 0;
  bool have_title = false, have_header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (blank(line)) continue;
    const std::string where = "cooling table " + path + " line " + std::to_string(line_no) + ": ";
    if (!have_title) {
      have_title = true;
      continue;
    }
    if (!have_header) {
      const std::vector<std::string> cols = split(line, true);
      bool ok = cols.size() == 12;
      for (int c = 0; ok && c < 12; ++c) ok = cols[c] == kColumns[c];
      if (!ok) throw Error(where + "expected the SD93 column header (" + column_list() + ")");
      have_header = true;
      continue;
    }
    const std::vector<std::string> cells = split(line, false);
    if (cells.size() != 12)
      throw Error(where + "expected 12 columns, found " + std::to_string(cells.size()));
    double v[12];
    for (int c = 0; c < 12; ++c) {
      char* end = nullptr;
      errno = 0;
      v[c] = std::strtod(cells[c].c_str(), &end);
      if (end == cells[c].c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v[c]))
        throw Error(where + "column " + std::to_string(c + 1) + " (" + kColumns[c] + "): '" +
                    cells[c] + "' is not a finite number");
    }
    if (std::fabs(v[kColNH] - 1.0) > 1e-3)
      throw Error(where + "nH = " + cells[kColNH] + " (the tables are normalised to nH = 1)");
    if (!(v[kColNe] > 0.0) || !(v[kColNt] > 0.0)) throw Error(where + "ne and nt must be positive");
    if (!f.log_T.empty()) {
      const double expected = f.log_T.back() + kLogTStep;
      if (std::fabs(v[0] - expected) > kGridTol)
        throw Error(where + "log(T) = " + cells[0] + " after " + fmt2(f.log_T.back()) +
                    " (log T must increase in steps of 0.05: expected " + fmt2(expected) + ")");
    }
    f.log_T.push_back(v[0]);
    f.ne.push_back(v[kColNe]);
    f.nt.push_back(v[kColNt]);
    f.log_lambda_norm.push_back(v[kColLambdaNorm]);
  }
  if (!have_header)
    throw Error("cooling table " + path + ": no SD93 column header (" + column_list() + ")");
  if (f.log_T.empty()) throw Error("cooling table " + path + ": no data rows");
  return f;
}

CoolingTableView CoolingTable::view() const {
  return {log_lambda_n.data(), log_ne.data(), log_nt.data(), feh.data(),
          int(feh.size()),     n_logT,        logT_min,      dlogT};
}

CoolingTable load_sd93_tables(const std::string& dir) {
  CoolingTable t;
  t.dir = dir;
  t.logT_min = kLogTFirst;
  t.dlogT = kLogTStep;
  t.n_logT = int(std::lround((kLogTLast - kLogTFirst) / kLogTStep)) + 1;
  const int n_files = int(sizeof kFiles / sizeof kFiles[0]);
  t.log_lambda_n.resize(std::size_t(n_files) * t.n_logT);
  t.log_ne.resize(t.log_lambda_n.size());
  t.log_nt.resize(t.log_lambda_n.size());

  for (int iz = 0; iz < n_files; ++iz) {
    const TableFile& tf = kFiles[iz];
    const std::string path = (std::filesystem::path(dir) / tf.name).string();
    if (!std::filesystem::exists(path))
      throw Error("cooling table " + path + " not found (cooling.table_dir = '" + dir + "')");
    const Sd93File f = read_sd93_file(path);
    const int first = int(std::lround((tf.log_T_first - kLogTFirst) / kLogTStep));
    const int expected_rows = t.n_logT - first;
    const int rows = int(f.log_T.size());
    if (std::fabs(f.log_T.front() - tf.log_T_first) > kGridTol || rows != expected_rows)
      throw Error("cooling table " + path + ": " + std::to_string(rows) + " data rows, log T " +
                  fmt2(f.log_T.front()) + " to " + fmt2(f.log_T.back()) + "; expected " +
                  std::to_string(expected_rows) + " rows, log T " + fmt2(tf.log_T_first) + " to " +
                  fmt2(kLogTLast));
    t.feh.push_back(tf.feh);
    const std::size_t base = std::size_t(iz) * t.n_logT;
    for (int r = 0; r < rows; ++r) {
      t.log_lambda_n[base + first + r] = f.log_lambda_norm[r];
      t.log_ne[base + first + r] = std::log10(f.ne[r]);
      t.log_nt[base + first + r] = std::log10(f.nt[r]);
    }
    // Rows below the published range (m+05.cie): the next lower metallicity shifted, in log, by
    // the difference at the first published row.
    for (std::vector<double>* col : {&t.log_lambda_n, &t.log_ne, &t.log_nt}) {
      std::vector<double>& c = *col;
      const std::size_t below = base - t.n_logT;
      for (int r = 0; r < first; ++r)
        c[base + r] = c[below + r] + (c[base + first] - c[below + first]);
    }
  }
  return t;
}

std::string find_cooling_table_dir(const std::string& configured) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!configured.empty()) {
    if (!fs::is_directory(configured, ec))
      throw Error("cooling.table_dir = '" + configured + "' is not a directory");
    return configured;
  }
  std::vector<fs::path> candidates;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path prefix = exe.parent_path().parent_path();
    candidates.push_back(prefix / "share" / "mpsph" / "cooling_tables" / "SD93_CIE");
    candidates.push_back(prefix / "data" / "cooling_tables" / "SD93_CIE");
  }
  candidates.push_back(fs::path(MPSPH_SOURCE_DIR) / "data" / "cooling_tables" / "SD93_CIE");
  std::string searched;
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c / "mzero.cie", ec)) return c.string();
    searched += (searched.empty() ? "" : ", ") + c.string();
  }
  throw Error("SD93 cooling tables not found (searched " + searched +
              "); set cooling.table_dir to the directory holding mzero.cie");
}

}  // namespace mpsph
