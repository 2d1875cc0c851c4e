#include "feedback/ssp_table.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace mpsph {

SspTable::SspTable(const SspModel& model) : model_(model) {
  if (model_.yields == YieldKind::Ww95) {
    if (!model_.ww95) throw Error("SSP table: yields ww95 without the WW95 tables");
    ww95_ = *model_.ww95;
    model_.ww95 = &ww95_;
  } else {
    model_.ww95 = nullptr;
  }
  const double breaks[kSspMassSegments + 1] = {0.1, 1.0, 1.5, 8.0, 40.0, 100.0};
  view_.n_mass = 1;
  for (int k = 0; k < kSspMassSegments; ++k) {
    view_.seg_logm[k] = std::log10(breaks[k]);
    view_.seg_node[k] = view_.n_mass - 1;
    view_.seg_cells[k] =
        int(std::ceil((std::log10(breaks[k + 1]) - std::log10(breaks[k])) / kSspTableDlogM));
    view_.n_mass += view_.seg_cells[k];
  }
  view_.seg_logm[kSspMassSegments] = std::log10(breaks[kSspMassSegments]);
  if (model_.yields == YieldKind::Ww95) {
    const double lz[] = {std::log10(kRvn96ZMin), std::log10(kWw95SolarZ) - 2.0,
                         std::log10(kWw95SolarZ) - 1.0, std::log10(kWw95SolarZ),
                         std::log10(kRvn96ZMax)};
    view_.n_z = 5;
    for (int k = 0; k < 5; ++k) view_.logz[k] = lz[k];
  } else {
    view_.n_z = 1;
    view_.logz[0] = std::log10(0.02);
  }
  view_.model = model_;
  values_.assign(std::size_t(view_.n_mass) * view_.n_z * kSspQuantities, 0.0);
  const SspModel& m = model_;
  const int n = view_.n_mass * view_.n_z;
#pragma omp parallel for schedule(dynamic, 64)
  for (int k = 0; k < n; ++k) {
    const int iz = k / view_.n_mass, im = k % view_.n_mass;
    int s = kSspMassSegments - 1;
    while (s > 0 && im < view_.seg_node[s]) --s;
    const double logm = view_.seg_logm[s] + (view_.seg_logm[s + 1] - view_.seg_logm[s]) *
                                                double(im - view_.seg_node[s]) / view_.seg_cells[s];
    const SspRelease r = ssp_mass_release(m, std::pow(10.0, logm), std::pow(10.0, view_.logz[iz]));
    for (int q = 0; q < kSspQuantities; ++q) values_[std::size_t(k) * kSspQuantities + q] = r.q[q];
  }
  view_.values = values_.data();
}

namespace {

// The rows of one WW95 file: mass, then the sum of the isotope columns.
void read_ww95_file(const std::string& path, std::vector<double>& mass, std::vector<double>& sum) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open WW95 yield table " + path);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::istringstream row(line);
    double m = 0.0, x = 0.0, s = 0.0;
    int cols = 0;
    if (!(row >> m)) throw Error(path + ":" + std::to_string(lineno) + ": not a number row");
    while (row >> x) {
      if (!std::isfinite(x) || x < 0.0)
        throw Error(path + ":" + std::to_string(lineno) + ": ejected mass not finite and >= 0");
      s += x;
      ++cols;
    }
    if (!row.eof() || cols < 3)
      throw Error(path + ":" + std::to_string(lineno) + ": expected a mass and 3 or 4 isotopes");
    if (!mass.empty() && !(m > mass.back()))
      throw Error(path + ":" + std::to_string(lineno) + ": masses must increase");
    mass.push_back(m);
    sum.push_back(s);
  }
  if (mass.size() < 2 || mass.size() > std::size_t(kWw95MaxMasses))
    throw Error(path + ": expected 2 to " + std::to_string(kWw95MaxMasses) + " rows");
}

}  // namespace

Ww95View load_ww95_tables(const std::string& dir) {
  const char* names[] = {"FeH-4", "FeH-2", "FeH-1", "FeH0"};
  const double logz[] = {-4.0, -2.0, -1.0, 0.0};
  Ww95View w{};
  w.n_z = 4;
  for (int iz = 0; iz < 4; ++iz) {
    w.logz[iz] = logz[iz];
    for (int e = 0; e < 2; ++e) {
      const std::string path =
          (std::filesystem::path(dir) /
           (std::string(names[iz]) + (e ? "_explosive_fe.dat" : "_explosive_o.dat")))
              .string();
      std::vector<double> mass, sum;
      read_ww95_file(path, mass, sum);
      if (iz == 0 && e == 0) {
        w.n_mass = int(mass.size());
        for (int k = 0; k < w.n_mass; ++k) w.mass[k] = mass[std::size_t(k)];
      } else {
        bool same = int(mass.size()) == w.n_mass;
        for (int k = 0; same && k < w.n_mass; ++k) same = mass[std::size_t(k)] == w.mass[k];
        if (!same) throw Error(path + ": its masses differ from those of the FeH-4 O table");
      }
      double* dst = (e ? w.fe : w.o) + iz * w.n_mass;
      for (int k = 0; k < w.n_mass; ++k) dst[k] = sum[std::size_t(k)];
    }
  }
  return w;
}

std::string find_ww95_dir(const std::string& configured) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!configured.empty()) {
    if (!fs::is_directory(configured, ec))
      throw Error("feedback.yields_dir = '" + configured + "' is not a directory");
    return configured;
  }
  std::vector<fs::path> candidates;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path prefix = exe.parent_path().parent_path();
    candidates.push_back(prefix / "share" / "mpsph" / "yields" / "WW95");
    candidates.push_back(prefix / "data" / "yields" / "WW95");
  }
  candidates.push_back(fs::path(MPSPH_SOURCE_DIR) / "data" / "yields" / "WW95");
  std::string searched;
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c / "FeH0_explosive_o.dat", ec)) return c.string();
    searched += (searched.empty() ? "" : ", ") + c.string();
  }
  throw Error("WW95 yield tables not found (searched " + searched +
              "); set feedback.yields_dir to the directory holding FeH0_explosive_o.dat");
}

}  // namespace mpsph
