#include "io/run_info.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/particle_store.hpp"
#include "io/hdf5_util.hpp"

namespace mpsph {

namespace {

namespace fs = std::filesystem;

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

std::string size_text(std::uintmax_t bytes) {
  if (bytes < 1024) return fmt("%ju B", bytes);
  if (bytes < 1024 * 1024) return fmt("%.1f KiB", bytes / 1024.0);
  return fmt("%.1f MiB", bytes / (1024.0 * 1024.0));
}

// ------------------------------------------------------------------ config_resolved.yaml

// "key value" pairs of a YAML subtree, nested keys joined with '.'.
void flatten(const YAML::Node& node, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node)
      flatten(
          kv.second,
          prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>(),
          out);
  } else if (node.IsSequence()) {
    std::string s;
    for (const auto& item : node) s += (s.empty() ? "" : ", ") + item.as<std::string>();
    out.emplace_back(prefix, "[" + s + "]");
  } else {
    const std::string v = node.IsNull() ? "~" : node.as<std::string>();
    out.emplace_back(prefix, v.empty() ? "\"\"" : v);
  }
}

// One section as "key value, key value, ..." wrapped below 100 columns.
std::string section_line(const std::string& name, const YAML::Node& node) {
  std::vector<std::pair<std::string, std::string>> kv;
  flatten(node, "", kv);
  const std::string indent(15, ' ');
  std::string out = fmt("  %-12s ", name.c_str());
  std::size_t col = out.size();
  for (std::size_t i = 0; i < kv.size(); ++i) {
    std::string item = kv[i].first + " " + kv[i].second + (i + 1 < kv.size() ? "," : "");
    if (col > indent.size() && col + 1 + item.size() > 99) {
      out += "\n" + indent;
      col = indent.size();
    } else if (col > indent.size()) {
      out += " ";
      ++col;
    }
    out += item;
    col += item.size();
  }
  return out + "\n";
}

struct ConfigSummary {
  std::string text;
  double t_end = NAN;
};

ConfigSummary config_summary(const fs::path& file) {
  ConfigSummary s;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw Error("cannot read '" + file.string() + "': " + e.what());
  }
  if (!root.IsMap()) throw Error("'" + file.string() + "' is not a YAML map");
  // The setup and units first, then the physics, then run control.
  std::vector<std::string> order = {"setup",   "units",   "eos",      "sph",
                                    "gravity", "cooling", "timestep", "run"};
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  }
  for (const std::string& key : order)
    if (root[key]) s.text += section_line(key, root[key]);
  const YAML::Node run = root["run"];
  if (run && run["t_end"]) s.t_end = run["t_end"].as<double>();
  const std::string device = run && run["device"] ? run["device"].as<std::string>() : "?";
  s.text += "  backend      run.device = " + device +
            " requested (the backend that ran: see timing.txt below)\n";
  return s;
}

// ------------------------------------------------------------------ energy.csv

struct EnergyLog {
  long rows = 0;
  long last_step = 0;
  double last_time = 0, last_error = 0;
  double max_error = 0, max_error_time = 0;
};

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

EnergyLog read_energy_log(const fs::path& file) {
  const std::string ctx = "'" + file.string() + "'";
  std::ifstream in(file);
  if (!in) throw Error("cannot read " + ctx);
  EnergyLog log;
  std::vector<std::string> columns;
  std::size_t i_step = 0, i_time = 0, i_err = 0;
  long line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, ',');
    if (columns.empty()) {
      columns = f;
      auto index = [&](const char* name) {
        const auto it = std::find(columns.begin(), columns.end(), name);
        if (it == columns.end()) throw Error(ctx + " has no column '" + name + "'");
        return std::size_t(it - columns.begin());
      };
      i_step = index("step");
      i_time = index("time");
      i_err = index("rel_error");
      continue;
    }
    if (f.size() != columns.size())
      throw Error(ctx + " line " + std::to_string(line_no) + " has " + std::to_string(f.size()) +
                  " fields; the header has " + std::to_string(columns.size()));
    ++log.rows;
    log.last_step = std::strtol(f[i_step].c_str(), nullptr, 10);
    log.last_time = std::strtod(f[i_time].c_str(), nullptr);
    log.last_error = std::fabs(std::strtod(f[i_err].c_str(), nullptr));
    if (log.rows == 1 || log.last_error > log.max_error) {
      log.max_error = log.last_error;
      log.max_error_time = log.last_time;
    }
  }
  if (columns.empty()) throw Error(ctx + " has no header line");
  return log;
}

// ------------------------------------------------------------------ timing.txt

struct Stage {
  std::string name;
  double seconds = 0, share = 0, ms_per_step = 0;
};

// Rows "name  seconds  share%  ms-per-step [ms-per-step-after-the-first]" of the StageTimer
// table; the "total" row separately.
std::vector<Stage> read_timing(const fs::path& file, Stage& total,
                               std::map<std::string, std::string>& meta) {
  const std::string ctx = "'" + file.string() + "'";
  std::ifstream in(file);
  if (!in) throw Error("cannot read " + ctx);
  std::vector<Stage> stages;
  std::string line;
  std::getline(in, line);  // column titles
  // Runs of two or more (sub)steps add the column "steps 2+ [ms]".
  const std::size_t cols = line.find("steps 2+") != std::string::npos ? 4 : 3;
  bool have_total = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    // The closing "key: value" lines (backend, steps, particle updates).
    if (const auto colon = line.find(':'); colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      meta[line.substr(0, colon)] = value;
      continue;
    }
    // Past the table: the notes of the backend (the MPI ranks' stage parts), not stages.
    if (have_total) continue;
    if (w.size() < cols + 1) throw Error(ctx + ": cannot parse line '" + line + "'");
    Stage s;
    const std::size_t first = w.size() - cols;  // the seconds
    for (std::size_t k = 0; k < first; ++k) s.name += (k ? " " : "") + w[k];
    s.seconds = std::strtod(w[first].c_str(), nullptr);
    s.share = std::strtod(w[first + 1].c_str(), nullptr);
    s.ms_per_step = std::strtod(w[first + 2].c_str(), nullptr);
    if (s.name == "total") {
      total = s;
      have_total = true;
    } else {
      stages.push_back(s);
    }
  }
  if (!have_total) throw Error(ctx + " has no 'total' row");
  return stages;
}

// ------------------------------------------------------------------ HDF5 files

struct SnapshotSummary {
  std::string error;  // non-empty when the file could not be read
  std::vector<uint64_t> counts = std::vector<uint64_t>(kNumTypes, 0);
  double time = 0;
  bool has_step = false;
  long step = 0;
};

SnapshotSummary read_snapshot_summary(const fs::path& file) {
  SnapshotSummary s;
  try {
    h5::File f = h5::open_for_reading(file.string(), "snapshot");
    const std::string ctx = "snapshot '" + file.string() + "': /Header";
    if (!h5::has_link(f.get(), "Header")) throw Error(ctx + " missing");
    h5::Group header = h5::open_group(f.get(), "Header", ctx);
    for (const char* name : {"NumPart_ThisFile", "NumPart_Total"}) {
      if (!h5::has_attribute(header.get(), name)) continue;
      const auto c = h5::read_uint64_attribute(header.get(), name, ctx);
      std::copy_n(c.begin(), std::min<std::size_t>(c.size(), kNumTypes), s.counts.begin());
      break;
    }
    s.time = h5::read_first_double_or(header.get(), "Time", 0, ctx);
    s.has_step = h5::has_attribute(header.get(), "Step");
    if (s.has_step) s.step = long(h5::read_first_double(header.get(), "Step", ctx));
  } catch (const Error& e) {
    s.error = e.what();
  }
  return s;
}

std::string checkpoint_line(const fs::path& file) {
  try {
    h5::File f = h5::open_for_reading(file.string(), "checkpoint");
    const std::string ctx = "checkpoint '" + file.string() + "'";
    if (!h5::has_link(f.get(), "State")) return "no /State group (not an mpsph checkpoint)";
    h5::Group state = h5::open_group(f.get(), "State", ctx);
    return fmt("t = %.10g, step %.0f, %.0f particles",
               h5::read_first_double(state.get(), "Time", ctx),
               h5::read_first_double(state.get(), "Step", ctx),
               h5::read_first_double_or(f.get(), "NumParticles", 0, ctx));
  } catch (const Error& e) {
    return std::string("unreadable: ") + e.what();
  }
}

const char* type_name(int t) {
  static const char* const names[] = {"gas",       "dark matter", "cold clouds",
                                      "old stars", "new stars",   "sinks"};
  return names[t];
}

}  // namespace

std::string run_info(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw Error("'" + dir + "' is not a directory");

  std::vector<fs::path> files, snapshots;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  if (ec) throw Error("cannot list '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const std::string name = p.filename().string();
    if (name.rfind("snapshot_", 0) == 0 && p.extension() == ".h5") snapshots.push_back(p);
  }
  const fs::path config = root / "config_resolved.yaml", energy = root / "energy.csv",
                 timing = root / "timing.txt", checkpoint = root / "checkpoint.h5";
  auto present = [&](const fs::path& p) { return fs::is_regular_file(p, ec); };
  if (!present(config) && !present(energy) && !present(checkpoint) && snapshots.empty())
    throw Error("'" + dir +
                "' is not an mpsph run directory (no config_resolved.yaml, energy.csv, "
                "checkpoint.h5 or snapshot_*.h5)");

  std::string out = "run directory  " + dir + "\n";

  // What ran.
  double t_end = NAN;
  out += "what ran       (config_resolved.yaml)\n";
  if (present(config)) {
    const ConfigSummary c = config_summary(config);
    out += c.text;
    t_end = c.t_end;
  } else {
    out += "  config_resolved.yaml missing: setup, units, physics and device unknown\n";
  }

  // Particles, from the last snapshot.
  uint64_t n_total = 0;
  SnapshotSummary last;
  if (!snapshots.empty()) last = read_snapshot_summary(snapshots.back());
  const std::string last_name = snapshots.empty() ? "" : snapshots.back().filename().string();
  if (snapshots.empty()) {
    out += "particles      no snapshot_*.h5\n";
  } else if (!last.error.empty()) {
    out += "particles      " + last_name + " unreadable: " + last.error + "\n";
  } else {
    std::string by_type;
    for (int t = 0; t < kNumTypes; ++t) {
      n_total += last.counts[t];
      if (last.counts[t] > 0)
        by_type += fmt("%s%s %llu", by_type.empty() ? "" : ", ", type_name(t),
                       static_cast<unsigned long long>(last.counts[t]));
    }
    out += fmt("particles      %llu (%s): %s\n", static_cast<unsigned long long>(n_total),
               last_name.c_str(), by_type.empty() ? "none" : by_type.c_str());
  }

  // How far, and the energy error.
  const std::string cont(15, ' ');
  std::string error_line = "energy.csv missing\n";
  out += "how far        ";
  if (!present(energy)) {
    out += "energy.csv missing\n";
  } else if (const EnergyLog e = read_energy_log(energy); e.rows == 0) {
    out += "energy.csv has no rows yet\n";
    error_line = "energy.csv has no rows yet\n";
  } else {
    out += fmt("t = %.10g", e.last_time);
    if (std::isfinite(t_end))
      out += fmt(" of t_end %.10g (%s)", t_end,
                 e.last_time >= t_end * (1 - 1e-12) ? "reached" : "not reached");
    out += fmt(", step %ld (energy.csv, last row)\n", e.last_step);
    error_line = fmt("max |rel_error| %.3e (at t = %.6g), last %.3e (energy.csv, %ld rows)\n",
                     e.max_error, e.max_error_time, e.last_error, e.rows);
  }
  if (!snapshots.empty() && last.error.empty())
    out += cont + "last snapshot " + last_name + fmt(": t = %.10g", last.time) +
           (last.has_step ? fmt(", step %ld", last.step) : std::string(", no Step attribute")) +
           "\n";
  out += cont + "checkpoint.h5: " +
         (present(checkpoint) ? checkpoint_line(checkpoint) : std::string("missing")) + "\n";
  out += "energy error   " + error_line;

  // Wall time and stage timing.
  if (present(timing)) {
    Stage total;
    std::map<std::string, std::string> meta;
    std::vector<Stage> stages = read_timing(timing, total, meta);
    const long steps = meta.count("steps") ? std::atol(meta["steps"].c_str())
                       : total.ms_per_step > 0
                           ? std::lround(total.seconds / (total.ms_per_step * 1e-3))
                           : 0;
    if (meta.count("backend")) out += "backend        " + meta["backend"] + " (timing.txt)\n";
    out +=
        fmt("wall time      %.3f s for %ld steps, %.3f ms per step (timing.txt: sum of the "
            "stages\n%sof the last `mpsph run`)\n",
            total.seconds, steps, total.ms_per_step, cont.c_str());
    if (meta.count("particle updates") && total.seconds > 0)
      out += fmt("updates/s      %.4g (%s particle updates / %.3f s)\n",
                 std::atof(meta["particle updates"].c_str()) / total.seconds,
                 meta["particle updates"].c_str(), total.seconds);
    else if (n_total > 0 && total.seconds > 0)
      out += fmt("updates/s      %.4g (%llu particles x %ld steps / %.3f s)\n",
                 double(n_total) * double(steps) / total.seconds,
                 static_cast<unsigned long long>(n_total), steps, total.seconds);
    else
      out += "updates/s      unknown (needs the particle count of a snapshot)\n";
    std::stable_sort(stages.begin(), stages.end(),
                     [](const Stage& a, const Stage& b) { return a.seconds > b.seconds; });
    out += "stage timing   (timing.txt, largest first)\n";
    for (const Stage& s : stages)
      out += fmt("  %-20s %10.3f s %6.1f%% %12.3f ms/step\n", s.name.c_str(), s.seconds, s.share,
                 s.ms_per_step);
  } else {
    out += "wall time      timing.txt missing (written when a run ends)\n";
  }

  // Files.
  out += "files\n";
  std::uintmax_t snap_bytes = 0;
  for (const fs::path& p : snapshots) snap_bytes += fs::file_size(p, ec);
  if (!snapshots.empty())
    out += fmt("  %-38s %zu file%s, %s\n",
               (snapshots.front().filename().string() +
                (snapshots.size() > 1 ? " .. " + last_name : std::string()))
                   .c_str(),
               snapshots.size(), snapshots.size() > 1 ? "s" : "", size_text(snap_bytes).c_str());
  for (const fs::path& p : files) {
    if (std::find(snapshots.begin(), snapshots.end(), p) != snapshots.end()) continue;
    out +=
        fmt("  %-38s %s\n", p.filename().string().c_str(), size_text(fs::file_size(p, ec)).c_str());
  }
  return out;
}

}  // namespace mpsph
