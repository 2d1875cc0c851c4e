#include "run/stage_timer.hpp"

#include <algorithm>
#include <cstdio>

namespace mpsph {

std::string steady_steps_line(const std::vector<double>& order_wall) {
  if (order_wall.size() < 4) return {};
  const std::size_t k = order_wall.size() - 2;  // order stages 2 .. last
  char line[200];
  std::snprintf(line, sizeof line,
                "\nsteady steps: %.3f ms per step, wall time between the order stages of steps 2 "
                "to %zu\n",
                1e3 * (order_wall.back() - order_wall[2]) / double(k - 1), k);
  return line;
}

void StageTimer::add(const std::string& stage, double seconds) {
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    if (entries_[k].name == stage) {
      entries_[k].seconds += seconds;
      ++entries_[k].calls;
      open_[k] += seconds;
      return;
    }
  }
  entries_.push_back({stage, seconds, 1});
  open_.push_back(seconds);
}

void StageTimer::end_step(std::size_t active, std::size_t total) {
  const double f = total > 0 ? double(active) / double(total) : 1.0;
  const int b = active >= total ? 5 : f < 1e-3 ? 0 : f < 1e-2 ? 1 : f < 0.1 ? 2 : f < 0.5 ? 3 : 4;
  if (closed_++ == 0) {
    first_.resize(entries_.size());
    for (std::size_t k = 0; k < entries_.size(); ++k) first_[k] = entries_[k].seconds;
  }
  Bin& bin = bins_[std::size_t(b)];
  ++bin.steps;
  bin.updates += double(active);
  bin.seconds.resize(entries_.size(), 0.0);
  for (std::size_t k = 0; k < open_.size(); ++k) {
    bin.seconds[k] += open_[k];
    open_[k] = 0.0;
  }
}

std::string StageTimer::step_profile() const {
  static const char* kNames[kBins] = {"< 0.001", "0.001-0.01", "0.01-0.1",
                                      "0.1-0.5", "0.5-1",      "1 (all)"};
  std::string out =
      "# mpsph step profile: wall time by the active fraction of the (sub)step; the stage "
      "columns in ms per (sub)step\n# (split between stages exact only with run.timing_sync: "
      "true; the step's total is exact in any case)\n";
  char cell[96];
  out += "active fraction      steps       updates  ms/step  ns/update";
  for (const Entry& e : entries_) {
    std::string name = e.name.substr(0, 12);
    std::replace(name.begin(), name.end(), ' ', '_');
    std::snprintf(cell, sizeof cell, " %12s", name.c_str());
    out += cell;
  }
  out += "\n";
  for (int b = 0; b < kBins; ++b) {
    const Bin& bin = bins_[std::size_t(b)];
    if (bin.steps == 0) continue;
    double tot = 0;
    for (double s : bin.seconds) tot += s;
    std::snprintf(cell, sizeof cell, "%-15s %10ld %13.0f %8.3f %10.1f", kNames[b], bin.steps,
                  bin.updates, 1e3 * tot / double(bin.steps),
                  bin.updates > 0 ? 1e9 * tot / bin.updates : 0.0);
    out += cell;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const double s = k < bin.seconds.size() ? bin.seconds[k] : 0.0;
      std::snprintf(cell, sizeof cell, " %12.3f", 1e3 * s / double(bin.steps));
      out += cell;
    }
    out += "\n";
  }
  return out;
}

double StageTimer::total() const {
  double t = 0;
  for (const auto& e : entries_) t += e.seconds;
  return t;
}

double StageTimer::seconds(const std::string& stage) const {
  for (const auto& e : entries_)
    if (e.name == stage) return e.seconds;
  return 0.0;
}

std::string StageTimer::table(long steps) const {
  const double tot = total();
  // After the first (sub)step: what the start-up (every h from scratch) leaves out.
  const bool later = closed_ >= 2;
  auto after_first = [&](std::size_t k) {
    return entries_[k].seconds - (k < first_.size() ? first_[k] : 0.0);
  };
  std::string out = "stage                  time [s]     share   per step [ms]";
  out += later ? "   steps 2+ [ms]\n" : "\n";
  char line[160];
  double tot_later = 0.0;
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    const Entry& e = entries_[k];
    std::snprintf(line, sizeof line, "%-20s %10.3f %8.1f%% %15.3f", e.name.c_str(), e.seconds,
                  tot > 0 ? 100.0 * e.seconds / tot : 0.0,
                  steps > 0 ? 1e3 * e.seconds / double(steps) : 0.0);
    out += line;
    if (later) {
      tot_later += after_first(k);
      std::snprintf(line, sizeof line, " %15.3f", 1e3 * after_first(k) / double(closed_ - 1));
      out += line;
    }
    out += "\n";
  }
  std::snprintf(line, sizeof line, "%-20s %10.3f %8.1f%% %15.3f", "total", tot, 100.0,
                steps > 0 ? 1e3 * tot / double(steps) : 0.0);
  out += line;
  if (later) {
    std::snprintf(line, sizeof line, " %15.3f", 1e3 * tot_later / double(closed_ - 1));
    out += line;
  }
  return out + "\n";
}

}  // namespace mpsph
