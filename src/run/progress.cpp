#include "run/progress.hpp"

#include <unistd.h>

#include <cmath>

namespace mpsph {

Progress::Progress(double t_start, double t_end, std::FILE* out, double min_interval_s)
    : t_start_(t_start),
      t_end_(t_end),
      out_(out),
      tty_(isatty(fileno(out)) != 0),
      min_interval_(min_interval_s),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::update(long step, double t, double dt, std::size_t n, std::size_t n_total,
                      double rel_err) {
  const auto now = std::chrono::steady_clock::now();
  updates_ += double(n);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = (t - t_start_) / (t_end_ - t_start_);
  const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  const double rate = elapsed > 0 ? updates_ / elapsed : 0.0;
  char active[32] = "";
  if (n < n_total)
    std::snprintf(active, sizeof active, "  active %.3g%%", 100.0 * double(n) / double(n_total));
  std::snprintf(
      line_, sizeof line_,
      "step %7ld  t = %.4g / %.4g  dt = %.3e%s  %.3g particles/s  ETA %.0f s  dE/E0 = %+.2e", step,
      t, t_end_, dt, active, rate, eta, rel_err);
  const bool due = std::chrono::duration<double>(now - last_print_).count() >= min_interval_;
  if (tty_) {
    if (due || !printed_) {
      std::fprintf(out_, "\r%s\033[K", line_);
      std::fflush(out_);
      last_print_ = now;
      printed_ = true;
    }
  } else if (due || !printed_) {
    std::fprintf(out_, "%s\n", line_);
    std::fflush(out_);
    last_print_ = now;
    printed_ = true;
  }
}

void Progress::finish() {
  if (line_[0] == 0) return;
  std::fprintf(out_, tty_ ? "\r%s\033[K\n" : "%s\n", line_);
  std::fflush(out_);
}

}  // namespace mpsph
