#include "parallel/distributed_limiter.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "parallel/particle_exchange.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/limiter.hpp"

namespace mpsph {

namespace {

// What the limiter reads of a neighbour (limiter_reference_step).
struct NeighbourStep {
  double dt_crit;
  int64_t ti_end;
  int32_t rung;
};

// The pair lists belong to the active gas of `a`, in its order (HaloPairs::active).
void check_pairs(const ParticleStore& s, const ActiveSet& a, const HaloPairs& pairs) {
  const std::size_t n_gas = a.gas_count(s.n_gas());
  bool same = pairs.active.size() == n_gas && pairs.offsets.size() == n_gas + 1 &&
              pairs.n_local == s.size();
  for (std::size_t k = 0; same && k < n_gas; ++k) same = pairs.active[k] == a[k];
  if (!same)
    throw Error(
        "time-step limiter across ranks: the pair lists are not those of the active "
        "particles (" +
        std::to_string(pairs.active.size()) + " lists, " + std::to_string(n_gas) +
        " active gas particles)");
}

}  // namespace

void distributed_limit_timesteps(ParticleStore& s, const ActiveSet& a, const HaloPairs& pairs,
                                 int64_t now, double length, double factor, const MpiComm& comm) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(a.count(v.n));
  const bool limit = factor > 0.0;
  std::vector<NeighbourStep> ghost;
  if (limit) {
    check_pairs(s, a, pairs);
    ghost = exchange_values<NeighbourStep>(pairs.plan, comm, [&](uint32_t j) {
      return NeighbourStep{v.dt_crit[j], v.ti_end[j], int32_t(v.rung[j])};
    });
  }
  const std::size_t n_local = pairs.n_local;
  const auto n_gas = static_cast<std::ptrdiff_t>(a.gas_count(v.n_gas));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = a[k];
    double dt = v.dt_crit[i];
    if (limit && k < n_gas)
      for (uint64_t p = pairs.offsets[std::size_t(k)]; p < pairs.offsets[std::size_t(k) + 1]; ++p) {
        const uint32_t j = pairs.neighbours[p];
        const double ref = j < n_local ? limiter_reference(v, j, now, length)
                                       : limiter_reference_step(
                                             ghost[j - n_local].dt_crit, ghost[j - n_local].ti_end,
                                             ghost[j - n_local].rung, now, length);
        dt = std::min(dt, factor * ref);
      }
    v.dt_limit[i] = dt;
  }
}

bool distributed_assign_rungs(ParticleStore& s, const ActiveSet& a, const HaloPairs& pairs,
                              int64_t now, double length, int d, const MpiComm& comm) {
  const bool rungs_ok = !comm.any(!new_rungs(s, a, now, length));
  if (d < 0) return rungs_ok;
  check_pairs(s, a, pairs);
  const ParticleView v = s.view();
  const std::size_t n_local = pairs.n_local;
  const auto n_gas = static_cast<std::ptrdiff_t>(pairs.active.size());
  // Requests: for local neighbours into rung_wake, for ghosts into `ghost` (their owners test
  // them).
  std::vector<int32_t> ghost(pairs.n_ghosts(), 0);
  bool any = false;
#pragma omp parallel for schedule(dynamic, 256) reduction(|| : any)
  for (std::ptrdiff_t k = 0; k < n_gas; ++k) {
    const std::size_t i = pairs.active[std::size_t(k)];
    const int32_t want = int32_t(v.rung[i]) - d;
    if (want <= 0) continue;
    for (uint64_t p = pairs.offsets[std::size_t(k)]; p < pairs.offsets[std::size_t(k) + 1]; ++p) {
      const uint32_t j = pairs.neighbours[p];
      if (j >= n_local) {
        request_wake(ghost[j - n_local], want);
      } else if (needs_wake(v, a, j, now, want)) {
        request_wake(v.rung_wake[j], want);
        any = true;
      }
    }
  }
  // The requests other ranks made for this rank's particles, one per particle sent to them.
  const std::vector<int32_t> remote = return_values(ghost, pairs.plan, comm);
  const auto n_sent = static_cast<std::ptrdiff_t>(remote.size());
#pragma omp parallel for schedule(static) reduction(|| : any)
  for (std::ptrdiff_t k = 0; k < n_sent; ++k) {
    const int32_t want = remote[std::size_t(k)];
    const uint32_t j = pairs.plan.send_index[std::size_t(k)];
    if (want > 0 && needs_wake(v, a, j, now, want)) {
      request_wake(v.rung_wake[j], want);
      any = true;
    }
  }
  if (any) apply_wakes(s, now);
  return rungs_ok;
}

}  // namespace mpsph
