#include "timestep/limiter.hpp"

#include <algorithm>

#include "sph/neighbour_search.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

void request_wake(int32_t& target, int32_t r) {
  int32_t seen = __atomic_load_n(&target, __ATOMIC_RELAXED);
  while (seen < r && !__atomic_compare_exchange_n(&target, &seen, r, true, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED)) {
  }
}

bool new_rungs(ParticleStore& s, const ActiveSet& a, int64_t now, double length) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(a.count(v.n));
  int too_short = 0;
#pragma omp parallel for schedule(static) reduction(max : too_short)
  for (std::ptrdiff_t k = 0; k < n; ++k)
    too_short = std::max(too_short, int(!new_rung_particle(v, a[k], now, length)));
  return too_short == 0;
}

void apply_wakes(ParticleStore& s, int64_t now) {
  const ParticleView v = s.view();
  const auto ng = static_cast<std::ptrdiff_t>(v.n_gas);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t j = 0; j < ng; ++j)
    if (v.rung_wake[j] != 0) wake_particle(v, std::size_t(j), now);
}

void limit_timesteps(ParticleStore& s, const ActiveSet& a, const SphNeighbours& nb, int64_t now,
                     double length, double factor) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(a.count(v.n));
  const bool pairs = factor > 0.0 && nb.has_pairs() && nb.n_gas() == v.n_gas;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = a[k];
    double dt = v.dt_crit[i];
    if (pairs && i < v.n_gas)
      for (const uint32_t* j = nb.pairs_begin(i); j != nb.pairs_end(i); ++j)
        dt = std::min(dt, factor * limiter_reference(v, *j, now, length));
    v.dt_limit[i] = dt;
  }
}

bool assign_rungs(ParticleStore& s, const ActiveSet& a, const SphNeighbours& nb, int64_t now,
                  double length, int d) {
  const bool rungs_ok = new_rungs(s, a, now, length);
  const ParticleView v = s.view();
  if (d < 0 || !nb.has_pairs() || nb.n_gas() != v.n_gas) return rungs_ok;
  const auto n_gas = static_cast<std::ptrdiff_t>(a.gas_count(v.n_gas));
  bool any = false;
#pragma omp parallel for schedule(dynamic, 256) reduction(|| : any)
  for (std::ptrdiff_t k = 0; k < n_gas; ++k) {
    const std::size_t i = a[k];
    const int32_t want = int32_t(v.rung[i]) - d;
    if (want <= 0) continue;
    for (const uint32_t* j = nb.pairs_begin(i); j != nb.pairs_end(i); ++j)
      if (needs_wake(v, a, *j, now, want)) {
        request_wake(v.rung_wake[*j], want);
        any = true;
      }
  }
  if (any) apply_wakes(s, now);
  return rungs_ok;
}

}  // namespace mpsph
