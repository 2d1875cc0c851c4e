// The neighbour time-step limiter and the wake-up of block time steps across ranks
// (parallel/distributed_limiter.hpp) against one process holding every particle (run by mpiexec
// on 1, 2 and 3 ranks): an open gas sphere with a dense core, half of it active at the middle of
// a segment on rungs 1-4, the other half inactive on rung 0, criteria spread over six rungs. The
// limited steps, the new rungs and the woken steps of every particle, compared by id, bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "catch.hpp"
#include "core/particle_order.hpp"
#include "core/rng.hpp"
#include "parallel/distributed_limiter.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/mpi_test_setup.hpp"
#include "sph/density.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"
#include "sph/sph_passes.hpp"
#include "sph/sph_test_setup.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator.hpp"
#include "timestep/limiter.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

constexpr int64_t kNow = kTicks / 2;  // the middle of the segment
constexpr double kLength = 1.0;
constexpr double kFactor = 4.0;  // timestep.limiter_factor: wake-up to rung r - 2
constexpr int kShift = 2;

// Half the particles end a step at kNow (rungs 1-4), the others are on rung 0 (to kTicks);
// dt_crit between length / 2^7 and length / 2: from the id, the same on every rank.
void set_timeline(ParticleStore& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const uint64_t id = s.id[i];
    const bool active = random_uniform(id, 91, kStreamSetup, 0) < 0.5;
    const int rung = active ? 1 + int(4.0 * random_uniform(id, 91, kStreamSetup, 1)) : 0;
    s.rung[i] = uint8_t(rung);
    s.ti_end[i] = active ? kNow : kTicks;
    s.ti_begin[i] = s.ti_end[i] - rung_ticks(rung);
    s.rung_wake[i] = 0;
    s.dt_crit[i] =
        kLength * std::ldexp(1.0, -1 - int(6.0 * random_uniform(id, 91, kStreamSetup, 2)));
    s.dt_limit[i] = s.dt_crit[i];
  }
}

}  // namespace

TEST_CASE("block steps across ranks: the limiter and the wake-up equal one process's",
          "[mpi][timestep]") {
  const MpiComm comm;
  std::vector<Vec3d> pos = clustered_points(1500, {0, 0, 0}, 1.0, 93);
  for (const Vec3d& x : uniform_points(3000, {-1, -1, -1}, {2, 2, 2}, 94))
    if (norm2(x) < 1.0) pos.push_back(x);
  ParticleStore all = gas_store(pos, 1.0 / double(pos.size()));
  random_velocities(all, 1.0, 95);
  const Box box;
  const SphParams sph;
  const EosParams eos;
  // h of every particle first (both sides start from them), then the timeline.
  order_particles(all, box);
  {
    SphNeighbours nb;
    compute_smoothing_lengths(all, box, sph, nb);
  }
  set_timeline(all);

  // One process: the pairs of the active gas, the limiter, the rungs and the wake-up.
  ParticleStore ref = all;
  std::vector<uint32_t> ref_index;
  std::size_t ref_n_gas = 0;
  select_active(ref, kNow, ref_index, ref_n_gas);
  const ActiveSet ra = active_subset(ref_index, ref_n_gas, kNow);
  SphNeighbours nb;
  nb.build_tree(ref, box, 0.0);
  compute_density(ref, box, sph, nb, ra);
  limit_timesteps(ref, ra, nb, kNow, kLength, kFactor);
  const bool ref_ok = assign_rungs(ref, ra, nb, kNow, kLength, kShift);

  // Across ranks: scattered start, decomposition, order, the density halo with the pair lists.
  ParticleStore s = scattered_share(all, comm);
  DomainDecomposition dd;
  dd.update(s, box, {}, comm);
  order_particles(s, box);
  const SphOrder order = sph_order(s, box, comm);
  std::vector<uint32_t> index;
  std::size_t n_gas = 0;
  select_active(s, kNow, index, n_gas);
  const ActiveSet a = active_subset(index, n_gas, kNow);
  const std::vector<uint32_t> active_gas(index.begin(), index.begin() + std::ptrdiff_t(a.n_gas));
  auto passes = make_cpu_sph_passes();
  DistributedSphReport rep;
  HaloPairs pairs;
  distributed_density_forces(s, box, order, sph, eos, comm, *passes, rep, &active_gas, &pairs);
  REQUIRE(pairs.active == active_gas);
  distributed_limit_timesteps(s, a, pairs, kNow, kLength, kFactor, comm);
  const bool ok = distributed_assign_rungs(s, a, pairs, kNow, kLength, kShift, comm);
  CHECK(ok == ref_ok);

  // Every particle's limited step, rung, step ticks and (cleared) wake-up request, by id.
  std::map<uint64_t, std::size_t> at;
  for (std::size_t i = 0; i < ref.size(); ++i) at[ref.id[i]] = i;
  uint64_t differ = 0, woken_here = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t j = at.at(s.id[i]);
    differ += std::memcmp(&s.dt_limit[i], &ref.dt_limit[j], sizeof(double)) != 0 ||
              s.rung[i] != ref.rung[j] || s.ti_begin[i] != ref.ti_begin[j] ||
              s.ti_end[i] != ref.ti_end[j] || s.rung_wake[i] != 0;
    woken_here += s.ti_begin[i] == 0 && s.ti_end[i] < kTicks;
  }
  const uint64_t differ_all = comm.sum(differ);
  const uint64_t ghosts = comm.sum(uint64_t(pairs.n_ghosts()));
  CHECK(differ_all == 0);
  CHECK(comm.sum(uint64_t(s.size())) == ref.size());
  // The case exercises what it tests: limited steps, wake-ups, and (on 2+ ranks) ghosts.
  uint64_t limited = 0, woken = 0;
  for (std::size_t k = 0; k < ra.n_gas; ++k)
    limited += ref.dt_limit[ref_index[k]] < ref.dt_crit[ref_index[k]];
  for (std::size_t i = 0; i < ref.size(); ++i)
    woken += ref.ti_begin[i] == 0 && ref.ti_end[i] < kTicks;
  CHECK(limited > 0);
  CHECK(woken > 0);
  CHECK(comm.sum(woken_here) == woken);
  if (comm.size() > 1) CHECK(ghosts > 0);
  if (comm.rank() == 0)
    std::printf(
        "limiter across %d ranks: %zu gas, %zu active; %llu steps limited, %llu woken; %llu "
        "ghosts; %llu particles differ from one process\n",
        comm.size(), ref.size(), ref_index.size(), (unsigned long long)limited,
        (unsigned long long)woken, (unsigned long long)ghosts, (unsigned long long)differ_all);
}
