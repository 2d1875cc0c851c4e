// Wall-clock time per named stage of the step, accumulated over the run and printed as a table.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace mpsph {

// timing.txt's "steady steps" line from the wall clock at each order stage of a run (one per step
// after the start-up's): the mean wall time per step between the order stages of steps 2 to the
// last but one, which leaves out the start-up (every h from scratch; across ranks, the scatter
// from rank 0) that the stage table's averages include. Empty below 4 order stages.
std::string steady_steps_line(const std::vector<double>& order_wall);

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
  // Table: stage, seconds, % of total, ms per step, and, once two (sub)steps have ended
  // (end_step), ms per (sub)step after the first: without the start-up (every h from scratch).
  std::string table(long steps) const;

  // Closes a (sub)step that updated `active` of `total` particles: the stage times since the last
  // call go to the row of its active fraction in step_profile().
  void end_step(std::size_t active, std::size_t total);
  // Wall time per (sub)step and per particle update by active fraction, with each stage's share
  // (step_profile.txt). The step's total is exact in any case (a step ends with its host
  // synchronisation); the split between stages only with the fence of run.timing_sync.
  std::string step_profile() const;

 private:
  struct Entry {
    std::string name;
    double seconds = 0;
    long calls = 0;
  };
  struct Bin {
    long steps = 0;
    double updates = 0;
    std::vector<double> seconds;  // per entry
  };
  static constexpr int kBins = 6;  // active fraction < 1e-3, 1e-2, 0.1, 0.5, 1, and 1
  std::vector<Entry> entries_;
  std::vector<double> open_;  // per entry: seconds since the last end_step()
  std::array<Bin, kBins> bins_;
  long closed_ = 0;            // (sub)steps ended
  std::vector<double> first_;  // per entry: seconds at the end of the first (sub)step
  std::function<void()> fence_;
};

}  // namespace mpsph
