// SD93 table loading, validation and interpolation.
#include "cooling/cooling_table.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cooling/cooling_kern.hpp"
#include "cooling/cooling_reference.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"

using namespace mpsph;
using mpsph::test::contains;
namespace fs = std::filesystem;

namespace {

struct Node {
  const char* file;
  double feh;
};
const Node kNodes[] = {{"mzero.cie", -HUGE_VAL}, {"m-30.cie", -3.0}, {"m-20.cie", -2.0},
                       {"m-15.cie", -1.5},       {"m-10.cie", -1.0}, {"m-05.cie", -0.5},
                       {"m-00.cie", 0.0},        {"m+05.cie", 0.5}};

const CoolingTable& table() {
  static const CoolingTable t = load_sd93_tables(find_cooling_table_dir(""));
  return t;
}

// Lambda/n_H^2 at (T, [Fe/H]).
double lambda_nH2(double T, double feh) {
  const CoolingTableView v = table().view();
  return sd93_lambda_nH2(v, T, feh_weight(v, feh));
}

// A scratch copy of the table directory, removed at the end of the test.
struct TempTables {
  fs::path dir;
  explicit TempTables(const std::string& tag) {
    dir = fs::temp_directory_path() / ("mpsph_cooling_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(find_cooling_table_dir("")))
      fs::copy_file(e.path(), dir / e.path().filename());
  }
  ~TempTables() { fs::remove_all(dir); }
  std::vector<std::string> lines(const std::string& file) const {
    std::ifstream in(dir / file);
    std::vector<std::string> out;
    std::string l;
    while (std::getline(in, l)) out.push_back(l);
    return out;
  }
  void write(const std::string& file, const std::vector<std::string>& lines) const {
    fs::permissions(dir / file, fs::perms::owner_write, fs::perm_options::add);
    std::ofstream out(dir / file);
    for (const std::string& l : lines) out << l << '\n';
  }
  // The loader's message for this directory ("" when it loads).
  std::string error() const {
    return test::error_message([&] { load_sd93_tables(dir.string()); });
  }
};

}  // namespace

TEST_CASE("SD93 interpolation returns the table values at the nodes", "[cooling][table]") {
  const CoolingTableView v = table().view();
  REQUIRE(v.n_feh == 8);
  REQUIRE(v.n_logT == 91);
  int checked = 0;
  for (const Node& n : kNodes) {
    // The file parsed independently of the loader.
    const test::RefTable ref = test::read_ref_table(test::sd93_table_path(n.file));
    REQUIRE(ref.log_T.size() == (n.feh == 0.5 ? 89u : 91u));
    for (std::size_t r = 0; r < ref.log_T.size(); ++r) {
      const double T = std::pow(10.0, ref.log_T[r]);
      // Exact up to the rounding of log T -> T -> log T (1e-15) times d log Lambda/d log T.
      CHECK(sd93_lambda_n(v, T, n.feh) ==
            Approx(std::pow(10.0, ref.log_lambda_n[r])).epsilon(1e-12));
      CHECK(lambda_nH2(T, n.feh) ==
            Approx(std::pow(10.0, ref.log_lambda_n[r]) * ref.ne[r] * ref.nt[r]).epsilon(1e-12));
      ++checked;
    }
  }
  CHECK(checked == 7 * 91 + 89);
  // The provenance README's sanity values of log Lambda_N (two decimals as printed).
  const double solar[] = {-20.99, -21.96, -22.57}, zero[] = {-22.33, -23.33, -23.12};
  for (int i = 0; i < 3; ++i) {
    CHECK(std::log10(sd93_lambda_n(v, std::pow(10.0, 5 + i), 0.0)) ==
          Approx(solar[i]).margin(1e-9));
    CHECK(std::log10(sd93_lambda_n(v, std::pow(10.0, 5 + i), -HUGE_VAL)) ==
          Approx(zero[i]).margin(1e-9));
  }
}

TEST_CASE("SD93 interpolation is monotone between nodes", "[cooling][table]") {
  const CoolingTableView v = table().view();
  // Along log T, inside every cell of every table: between the end values, monotone.
  long violations = 0;
  for (const Node& n : kNodes)
    for (int it = 0; it + 1 < v.n_logT; ++it) {
      const double lt = v.logT_min + it * v.dlogT;
      const double a = lambda_nH2(std::pow(10.0, lt), n.feh);
      const double b = lambda_nH2(std::pow(10.0, lt + v.dlogT), n.feh);
      double prev = a;
      for (int j = 1; j < 10; ++j) {
        const double x = lambda_nH2(std::pow(10.0, lt + v.dlogT * j / 10.0), n.feh);
        const double tol = 1e-12 * std::max(a, b);
        if (x < std::min(a, b) - tol || x > std::max(a, b) + tol) ++violations;
        if ((b >= a && x < prev - tol) || (b < a && x > prev + tol)) ++violations;
        prev = x;
      }
    }
  CHECK(violations == 0);
  // Along [Fe/H] at every log T node, including the metal-free to -3 segment (linear in Z).
  const double feh_grid[] = {-HUGE_VAL, -6.0, -4.0, -3.5, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5};
  for (int it = 0; it < v.n_logT; ++it) {
    const double T = std::pow(10.0, v.logT_min + it * v.dlogT);
    for (int s = 0; s + 1 < int(sizeof feh_grid / sizeof feh_grid[0]); ++s) {
      const double lo = feh_grid[s], hi = feh_grid[s + 1];
      const double a = lambda_nH2(T, lo), b = lambda_nH2(T, hi);
      double prev = a;
      for (int j = 1; j < 10; ++j) {
        const double feh = std::isinf(lo) ? hi - 12.0 + 12.0 * j / 10.0 : lo + (hi - lo) * j / 10.0;
        const double x = lambda_nH2(T, feh);
        const double tol = 1e-12 * std::max(a, b);
        if (std::isinf(lo)) {  // only monotone: -inf is not on this sub-grid
          if ((b >= a && x < prev - tol) || (b < a && x > prev + tol)) ++violations;
        } else if (x < std::min(a, b) - tol || x > std::max(a, b) + tol) {
          ++violations;
        }
        prev = x;
      }
    }
  }
  CHECK(violations == 0);
  // Continuous where the metallicity weight changes form, at [Fe/H] = -3.
  CHECK(lambda_nH2(1e5, -3.0 - 1e-9) == Approx(lambda_nH2(1e5, -3.0)).epsilon(1e-8));
  // Far below -3 the metal-free table (Z/Z(-3) = 1e-7 at -10).
  CHECK(lambda_nH2(1e5, -10.0) == Approx(lambda_nH2(1e5, -HUGE_VAL)).epsilon(1e-6));
}

TEST_CASE("SD93 interpolation clamps at the table edges", "[cooling][table]") {
  // Above log T = 8.5 and above [Fe/H] = +0.5 the edge values (PHYSICS.md: clamp).
  CHECK(lambda_nH2(1e10, 0.0) == Approx(lambda_nH2(std::pow(10.0, 8.5), 0.0)).epsilon(1e-14));
  CHECK(lambda_nH2(1e6, 1.0) == Approx(lambda_nH2(1e6, 0.5)).epsilon(1e-14));
  // m+05.cie starts at log T = 4.10: below, the solar curve times the ratio at 4.10.
  const double r410 = lambda_nH2(std::pow(10.0, 4.1), 0.5) / lambda_nH2(std::pow(10.0, 4.1), 0.0);
  CHECK(lambda_nH2(1e4, 0.5) / lambda_nH2(1e4, 0.0) == Approx(r410).epsilon(1e-12));
  CHECK(lambda_nH2(std::pow(10.0, 4.05), 0.5) / lambda_nH2(std::pow(10.0, 4.05), 0.0) ==
        Approx(r410).epsilon(1e-12));
}

TEST_CASE("SD93 loader errors name the file and the line", "[cooling][table]") {
  SECTION("missing file") {
    TempTables t("missing");
    fs::remove(t.dir / "m-15.cie");
    const std::string e = t.error();
    CHECK(contains(e, (t.dir / "m-15.cie").string()));
    CHECK(contains(e, "not found"));
  }
  SECTION("a row with a column missing") {
    TempTables t("columns");
    auto lines = t.lines("m-10.cie");
    lines[19] = lines[19].substr(0, lines[19].rfind('\t'));  // line 20
    t.write("m-10.cie", lines);
    const std::string e = t.error();
    CHECK(contains(e, "m-10.cie line 20"));
    CHECK(contains(e, "expected 12 columns, found 11"));
  }
  SECTION("a cell that is not a number") {
    TempTables t("number");
    auto lines = t.lines("m-00.cie");
    lines[30].replace(lines[30].find('\t') + 1, 1, "x");  // line 31, column 2 (ne)
    t.write("m-00.cie", lines);
    const std::string e = t.error();
    CHECK(contains(e, "m-00.cie line 31"));
    CHECK(contains(e, "column 2 (ne)"));
  }
  SECTION("log T not increasing in steps of 0.05") {
    TempTables t("order");
    auto lines = t.lines("m-20.cie");
    std::swap(lines[40], lines[41]);  // lines 41 and 42
    t.write("m-20.cie", lines);
    const std::string e = t.error();
    CHECK(contains(e, "m-20.cie line 41"));
    CHECK(contains(e, "steps of 0.05"));
  }
  SECTION("rows missing at the end") {
    TempTables t("rows");
    auto lines = t.lines("mzero.cie");
    lines.resize(lines.size() - 10);
    t.write("mzero.cie", lines);
    const std::string e = t.error();
    CHECK(contains(e, "mzero.cie"));
    CHECK(contains(e, "expected 91 rows"));
  }
  SECTION("a wrong column header") {
    TempTables t("header");
    auto lines = t.lines("m-30.cie");
    lines[2].replace(lines[2].find("nt"), 2, "ni");  // line 3
    t.write("m-30.cie", lines);
    const std::string e = t.error();
    CHECK(contains(e, "m-30.cie line 3"));
    CHECK(contains(e, "column header"));
  }
  SECTION("an unchanged copy loads and a missing directory is named") {
    TempTables t("ok");
    CHECK(t.error().empty());
    std::string e;
    try {
      find_cooling_table_dir((t.dir / "nowhere").string());
    } catch (const Error& x) {
      e = x.what();
    }
    CHECK(contains(e, (t.dir / "nowhere").string()));
    CHECK(contains(e, "not a directory"));
  }
}
