// Pure-SPH steps across ranks against the CPU backend of one process (run by mpiexec on 1, 2 and
// 3 ranks): a Sod shock tube (lattice, so the neighbour searches meet many equal distances) for
// 12 global steps, and a stirred periodic box whose particles migrate at every step; every field
// of every particle, compared by id, equals the single-process run's bit for bit. And what is not
// supported across ranks is refused.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "parallel/distributed_step.hpp"
#include "parallel/global_step_reference.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/mpi_test_setup.hpp"
#include "setups/sod.hpp"
#include "sph/eos_kern.hpp"
#include "sph/sph_test_setup.hpp"
#include "timestep/block_timeline_kern.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

SodSetup small_sod() {
  SodParams p;
  p.nx_left = 12;
  p.ny_left = 12;
  p.glass = false;
  return make_sod(p);
}

// `steps` global steps of `initial` on this run's ranks and on one process; every field of every
// particle must agree bit for bit.
// moving_domains: the case is built to re-cut and migrate during the steps (checked on > 1 rank).
void compare_steps(const char* name, const ParticleStore& initial, const Box& box, int steps,
                   const DecompositionParams& dp, bool moving_domains) {
  const MpiComm comm;
  SphParams sph;
  EosParams eos;
  GravityParams grav;
  grav.enabled = false;
  TimestepParams tstep;
  tstep.scheme = TimestepScheme::Global;  // the ranks step globally

  ParticleStore ref = initial;
  std::vector<double> ref_dts;
  single_process(ref, box, sph, eos, grav, tstep, steps, ref_dts);

  ParticleStore s = scattered_share(initial, comm);
  DistributedStepper stepper(box, sph, eos, grav, tstep, dp, comm);
  double dt = stepper.start(s);
  const uint64_t sent_first = comm.sum(uint64_t(stepper.last_decomposition().sent));
  std::size_t recuts = 0, sent = 0;
  double worst_imbalance = 0.0;
  for (int k = 0; k < steps; ++k) {
    CHECK(dt == ref_dts[std::size_t(k)]);
    dt = stepper.step(s, dt);
    const DecompositionReport& d = stepper.last_decomposition();
    recuts += d.recut;
    sent += comm.sum(uint64_t(d.sent));
    worst_imbalance = std::max(worst_imbalance, d.imbalance);
  }

  // Every field of every particle as on one process: the reference in this rank's order (by id).
  std::map<uint64_t, std::size_t> at;
  for (std::size_t i = 0; i < ref.size(); ++i) at[ref.id[i]] = i;
  std::vector<std::size_t> perm(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) perm[i] = at.at(s.id[i]);
  ParticleStore mine = ref;
  mine.permute(perm);
  mine.resize(s.size());
  uint64_t differ = 0;
  std::string differing;
#define MPSPH_COMPARE_FIELD(name, ...)                                            \
  for (std::size_t i = 0; i < s.size(); ++i)                                      \
    if (std::memcmp(&s.name[i], &mine.name[i], sizeof(s.name[i])) != 0) {         \
      ++differ;                                                                   \
      if (differing.find(" " #name) == std::string::npos) differing += " " #name; \
    }
  MPSPH_PARTICLE_FIELDS(MPSPH_COMPARE_FIELD)
#undef MPSPH_COMPARE_FIELD
  INFO("fields that differ on rank " << comm.rank() << ":" << differing);
  CHECK(differ == 0);
  const uint64_t differ_all = comm.sum(differ);
  CHECK(differ_all == 0);
  CHECK(comm.sum(uint64_t(s.size())) == ref.size());
  if (moving_domains && comm.size() > 1) {
    CHECK(recuts > 0);
    CHECK(sent > 0);
  }
  double t_end = 0.0;
  for (const double x : ref_dts) t_end += x;
  if (comm.rank() == 0)
    std::printf(
        "%s on %d ranks: %zu particles, %d steps (t = %.4g); first decomposition moved "
        "%llu particles; later re-cuts %zu, migrated %zu, worst imbalance %.2e; "
        "particle fields differing from one process: %llu\n",
        name, comm.size(), ref.size(), steps, t_end, (unsigned long long)sent_first, recuts, sent,
        worst_imbalance, (unsigned long long)differ_all);
}

}  // namespace

TEST_CASE("SPH steps across ranks equal one process bit for bit: Sod tube, 12 steps",
          "[mpi][sph][step]") {
  const SodSetup sod = small_sod();
  compare_steps("Sod", sod.particles, sod.box, 12, DecompositionParams{}, false);
}

TEST_CASE(
    "SPH steps across ranks equal one process bit for bit: stirred periodic box with "
    "re-cuts and migration at every step",
    "[mpi][sph][step]") {
  // Random velocities of Mach ~3 (c_s ~ 1): particles cross the domain boundaries within a few
  // steps, and a threshold of 0.1% re-cuts the domains whenever the neighbour counts shift.
  const Box box = periodic_box({0, 0, 0}, {1, 1, 1});
  ParticleStore s = gas_store(uniform_points(2000, {0, 0, 0}, {1, 1, 1}, 91), 1.0 / 2000);
  random_velocities(s, 3.0, 92);
  compare_steps("stirred box", s, box, 20, DecompositionParams{0.001, {}}, true);
}

TEST_CASE(
    "across ranks, periodic or direct gravity and particle creation are refused, block steps "
    "accepted",
    "[mpi][sph][step]") {
  const MpiComm comm;
  const SodSetup sod = small_sod();
  GravityParams grav;  // on by default
  TimestepParams tstep;
  tstep.scheme = TimestepScheme::Global;  // the ranks step globally
  REQUIRE(sod.box.periodic);
  CHECK_THROWS_AS(DistributedStepper(sod.box, {}, {}, grav, tstep, {}, comm), Error);
  grav.method = GravityMethod::Direct;
  CHECK_THROWS_AS(DistributedStepper(Box{}, {}, {}, grav, tstep, {}, comm), Error);
  grav.method = GravityMethod::Tree;
  CHECK_NOTHROW(DistributedStepper(Box{}, {}, {}, grav, tstep, {}, comm));
  grav.enabled = false;
  tstep.scheme = TimestepScheme::Block;
  CHECK_NOTHROW(DistributedStepper(sod.box, {}, {}, grav, tstep, {}, comm));
  // A global stepper's step() refuses to run block steps.
  {
    ParticleStore b = scattered_share(sod.particles, comm);
    DistributedStepper block(sod.box, {}, {}, grav, tstep, {}, comm);
    CHECK_THROWS_AS(block.step(b, 1e-3), Error);
  }
  tstep.scheme = TimestepScheme::Global;
  ParticleStore s = scattered_share(sod.particles, comm);
  // One spawn request on rank 0 only: every rank refuses (none is left in a collective call).
  if (comm.rank() == 0) s.spawn_mass[0] = 0.5 * s.mass[0];
  DistributedStepper stepper(sod.box, {}, {}, grav, tstep, {}, comm);
  CHECK_THROWS_AS(stepper.start(s), Error);
}
