#include "feedback/feedback.hpp"

#include <utility>
#include <vector>

#include "feedback/gas_neighbours.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

void give_up_ejecta(const ParticleView& p, const std::vector<uint32_t>& stars,
                    const std::vector<StarRelease>& rel, const GasShares& sh,
                    FeedbackStepResult& res) {
  for (std::size_t s = 0; s < stars.size(); ++s) {
    if (sh.n_recv[s] == 0) continue;
    lose_ejecta(p, stars[s], rel[s].dm);
    res.energy += rel[s].de;
    res.mass += rel[s].dm;
    ++res.stars;
  }
}

FeedbackStepResult apply_feedback(const ParticleView& p, const ActiveSet& a, const Box& box,
                                  const FeedbackKernParams& kp, const FeedbackTiming& ft,
                                  double time, double tick_len) {
  FeedbackStepResult res;
  std::vector<uint32_t> stars;
  const std::size_t n_active = a.count(p.n);
  for (std::size_t k = a.gas_count(p.n_gas); k < n_active; ++k)
    if (is_feedback_star(p, a[k])) stars.push_back(uint32_t(a[k]));
  if (stars.empty()) return res;
  const HostGasGrid gg = build_gas_grid(p, box);
  if (gg.grid.n == 0) return res;  // no gas: the stars keep what they would release

  // --- per star: release, then the neighbours and weights of those that release something
  const int nb = kp.n_ngb;
  const std::size_t ns = stars.size();
  std::vector<StarRelease> rel(ns);
  std::vector<uint8_t> need(ns, 0);
  const auto nsi = static_cast<std::ptrdiff_t>(ns);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t s = 0; s < nsi; ++s) {
    const std::size_t i = stars[std::size_t(s)];
    const double dt = a.all() ? double(kTicks) * tick_len : particle_step(p, i, tick_len);
    rel[std::size_t(s)] = star_release(kp, p, i, time, dt);
    need[std::size_t(s)] = rel[std::size_t(s)].dm > 0.0 || rel[std::size_t(s)].de > 0.0;
  }
  GasShares sh;
  find_gas_shares(p, box, gg, stars.data(), need.data(), ns, nb, sh);
  give_up_ejecta(p, stars, rel, sh, res);
  // --- each receiver takes its shares in star order
  const ReceiverRuns runs = receiver_runs(sh);
  res.receivers = runs.count();
  res.woken = take_shares(
      p, runs.first, [&](std::size_t k) { return std::size_t(runs.pairs[k].first); },
      [&](std::size_t k) {
        const uint64_t slot = runs.pairs[k].second;
        return std::make_pair(&rel[slot / uint64_t(nb)], sh.weight[slot]);
      },
      ft, a.tick, double(kTicks) * tick_len, a.all());
  return res;
}

}  // namespace mpsph
