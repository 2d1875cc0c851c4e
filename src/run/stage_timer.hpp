// Wall-clock time per named stage of the step, accumulated over the run and printed as a table.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace mpsph {

class StageTimer {
 public:
  // Runs f() and charges its wall time to `stage` (stages keep their first-seen order).
  // With a fence set (run.timing_sync on the GPU), time() waits for the stage's queued work
  // before reading the clock, so that asynchronous stages are charged to themselves rather than
  // to the next stage that waits for them.
  template <class F>
  void time(const std::string& stage, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    if (fence_) fence_();
    add(stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  void set_fence(std::function<void()> fence) { fence_ = std::move(fence); }
  void add(const std::string& stage, double seconds);
  double total() const;
  double seconds(const std::string& stage) const;
  // Table: stage, seconds, % of total, ms per step.
  std::string table(long steps) const;

 private:
  struct Entry {
    std::string name;
    double seconds = 0;
    long calls = 0;
  };
  std::vector<Entry> entries_;
  std::function<void()> fence_;
};

}  // namespace mpsph
