// The GPU order stage applies particle changes (run/particle_changes_gpu.hpp) exactly as the CPU
// one: after each round the same particles in the same order, with the same ids, types, masses,
// positions and velocities (bitwise), and the same counts; mass and momentum conserved.
#ifdef MPSPH_HAVE_CUDA
#include <cstdio>
#include <set>

#include "catch.hpp"
#include "run/particle_changes.hpp"
#include "run/particle_changes_support.hpp"

using namespace mpsph;

TEST_CASE("GPU order stage: type changes, creation and removal as on the CPU",
          "[gpu][run][changes]") {
  ParticleStore cpu_store = test::mixed_store(20000);
  ParticleStore gpu_store = cpu_store;
  Box box;
  SphParams sph;
  EosParams eos;
  GravityParams grav;
  TimestepParams ts;
  ts.scheme = TimestepScheme::Global;
  auto cpu = make_cpu_backend(StepContext{cpu_store, box, sph, eos, grav, ts, 1.0, {}});
  auto gpu = make_gpu_backend(StepContext{gpu_store, box, sph, eos, grav, ts, 1.0, {}});
  for (StepBackend* b : {cpu.get(), gpu.get()}) {
    b->set_next_id(first_free_id(cpu_store));
    b->sync_from_host();
    b->order();
  }
  gpu->sync_to_host();
  REQUIRE(gpu_store.id == cpu_store.id);

  for (uint64_t round = 1; round <= 4; ++round) {
    const test::Totals before = test::totals(cpu_store);
    test::change_particles(cpu_store, round);
    test::change_particles(gpu_store, round);
    cpu->order();
    // The run's path on the GPU: the step's reduction counts types and requests on the device,
    // the next order stage sizes the changes from those counts.
    gpu->sync_from_host();
    gpu->timestep();
    gpu->order();
    const Conserved c = gpu->conserved();
    gpu->sync_to_host();
    INFO("round " << round);
    REQUIRE(gpu_store.size() == cpu_store.size());
    CHECK(gpu->particle_count() == cpu->particle_count());
    CHECK(gpu->gas_count() == cpu->gas_count());
    CHECK(gpu->next_id() == cpu->next_id());
    CHECK(gpu_store.id == cpu_store.id);
    CHECK(gpu_store.type == cpu_store.type);
    CHECK(gpu_store.mass == cpu_store.mass);
    CHECK(gpu_store.spawn_mass == cpu_store.spawn_mass);
    CHECK(gpu_store.z_fe == cpu_store.z_fe);
    bool same_pos = true, same_vel = true;
    for (std::size_t i = 0; i < cpu_store.size(); ++i) {
      same_pos = same_pos && gpu_store.pos[i].x == cpu_store.pos[i].x &&
                 gpu_store.pos[i].y == cpu_store.pos[i].y &&
                 gpu_store.pos[i].z == cpu_store.pos[i].z;
      same_vel = same_vel && gpu_store.vel[i].x == cpu_store.vel[i].x &&
                 gpu_store.vel[i].y == cpu_store.vel[i].y &&
                 gpu_store.vel[i].z == cpu_store.vel[i].z;
    }
    CHECK(same_pos);
    CHECK(same_vel);
    // The device's sums of the changed set against the host totals before the changes.
    CHECK(test::rel(c.mass, before.mass) < 1e-13);
    CHECK(norm(c.momentum - before.momentum) < 1e-13 * norm(before.momentum) + 1e-13);
    std::printf("GPU particle changes, round %d: N = %zu, gas %zu, mass rel. diff %.2e\n",
                int(round), gpu_store.size(), gpu->gas_count(), test::rel(c.mass, before.mass));
  }
}
#endif
