// The progress line: step, time / end time, dt, particle updates per second, ETA and the relative
// energy error. On a terminal it updates in place; otherwise (logs, CI) it prints plain lines at
// most every `min_interval_s` seconds.
#pragma once

#include <chrono>
#include <cstdio>

namespace mpsph {

class Progress {
 public:
  Progress(double t_start, double t_end, std::FILE* out = stdout, double min_interval_s = 2.0);
  // Called once per (sub)step after it completed: n_updated of n_total particles got new forces
  // (the active fraction is shown when it is below 1); the energy error is the one of the last
  // synchronisation point.
  void update(long step, double t, double dt, std::size_t n_updated, std::size_t n_total,
              double rel_energy_error);
  // Ends the in-place line (prints the last state).
  void finish();

 private:
  double t_start_, t_end_;
  std::FILE* out_;
  bool tty_;
  double min_interval_;
  std::chrono::steady_clock::time_point start_, last_print_;
  double updates_ = 0;  // particle updates since start
  bool printed_ = false;
  char line_[256] = {0};
};

}  // namespace mpsph
