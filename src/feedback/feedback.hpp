// The OpenMP driver of SSP feedback (feedback_kern.hpp), one call per (sub)step in the slot after
// the forces: every active star finds its release and its gas neighbours (gas_neighbours.hpp,
// shared with the cold phase), then every receiving gas particle takes its shares in a fixed order
// (by star store index), so the result does not depend on the number of threads and matches the
// CUDA driver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback_kern.hpp"
#include "feedback/gas_neighbours.hpp"

namespace mpsph {

struct FeedbackStepResult {
  double energy = 0.0;        // SN energy injected (code energy)
  double mass = 0.0;          // mass returned (code mass)
  std::size_t stars = 0;      // active stars that released something
  std::size_t receivers = 0;  // gas particles that received
  std::size_t woken = 0;      // inactive receivers synchronised onto shorter rungs
};

struct FeedbackTiming {
  double gamma = 5.0 / 3.0;  // adiabatic index: the receivers' new sound speed
  double courant = 0.1;      // C of the time-step criteria: the wake-up rung of C h / c
};

// Stars stars[s] with receivers (sh.n_recv[s] > 0) lose the ejecta of their releases rel[s]; res
// counts them and sums their energy and mass, in star order (the same total in any thread order).
// Shared by apply_feedback and its MPI ranks' version (feedback_ranks.hpp).
void give_up_ejecta(const ParticleView& p, const std::vector<uint32_t>& stars,
                    const std::vector<StarRelease>& rel, const GasShares& sh,
                    FeedbackStepResult& res);

// The receivers take their shares (shared by apply_feedback and its MPI ranks' version): run r of
// shares [first[r], first[r + 1]) goes to gas particle receiver(first[r]), which adds share k =
// (release, weight) = share(k) for each k of the run in that order (receive_feedback), then is
// synchronised (feedback_sync at tick `now` of a segment of `length`; `all`: every particle is
// active). The runs run on the threads, each in its own order: the result does not depend on the
// number of threads. Returns the receivers woken onto shorter rungs.
template <class Receiver, class ShareOf>
std::size_t take_shares(const ParticleView& p, const std::vector<std::size_t>& first,
                        Receiver receiver, ShareOf share, const FeedbackTiming& ft, int64_t now,
                        double length, bool all) {
  const auto nr = static_cast<std::ptrdiff_t>(first.empty() ? 0 : first.size() - 1);
  std::size_t woken = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : woken)
  for (std::ptrdiff_t r = 0; r < nr; ++r) {
    const std::size_t j = receiver(first[std::size_t(r)]);
    for (std::size_t k = first[std::size_t(r)]; k < first[std::size_t(r) + 1]; ++k) {
      const auto [rel, weight] = share(k);
      receive_feedback(p, j, *rel, weight);
    }
    woken += feedback_sync(p, j, ft.gamma, ft.courant, now, length, all);
  }
  return woken;
}

// Feedback of the active stars of `a` at code time `time` (their step ends there; under the
// global scheme every star with the step kTicks tick_len). Receivers get their new sound speed in
// `csound` (the next time-step criteria see it) and, under block steps, an inactive receiver is
// synchronised at the injection (feedback_sync: a new step from its state after it, on the rung of
// its C h / c when that is shorter).
FeedbackStepResult apply_feedback(const ParticleView& p, const ActiveSet& a, const Box& box,
                                  const FeedbackKernParams& kp, const FeedbackTiming& ft,
                                  double time, double tick_len);

}  // namespace mpsph
