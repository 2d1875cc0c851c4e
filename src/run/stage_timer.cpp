#include "run/stage_timer.hpp"

#include <cstdio>

namespace mpsph {

void StageTimer::add(const std::string& stage, double seconds) {
  for (auto& e : entries_) {
    if (e.name == stage) {
      e.seconds += seconds;
      ++e.calls;
      return;
    }
  }
  entries_.push_back({stage, seconds, 1});
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
  std::string out = "stage                  time [s]     share   per step [ms]\n";
  char line[160];
  for (const auto& e : entries_) {
    std::snprintf(line, sizeof line, "%-20s %10.3f %8.1f%% %15.3f\n", e.name.c_str(), e.seconds,
                  tot > 0 ? 100.0 * e.seconds / tot : 0.0,
                  steps > 0 ? 1e3 * e.seconds / double(steps) : 0.0);
    out += line;
  }
  std::snprintf(line, sizeof line, "%-20s %10.3f %8.1f%% %15.3f\n", "total", tot, 100.0,
                steps > 0 ? 1e3 * tot / double(steps) : 0.0);
  return out + line;
}

}  // namespace mpsph
