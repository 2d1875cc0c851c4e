// Device memory (issue #16 item 4): the optional field groups that a GPU run leaves off the device
// keep their one value through reorders and downloads, a run without them gives every field of
// every particle bit for bit as a run holding every field, and the stages that share one scratch
// buffer (core/device_scratch.hpp) give the results of private buffers.
#ifdef MPSPH_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/device_scratch.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/rng.hpp"
#include "run/global_steps_support.hpp"
#include "run/step_backend.hpp"
#include "setups/evrard.hpp"
#include "sph/sph_gpu.hpp"

using namespace mpsph;

namespace {

// Every field of every particle, byte for byte, but walk_cost: SM clock cycles of the gravity
// walk (core/particle_fields.hpp), a timing that differs from run to run; it must be set (> 0)
// for every particle in both, as every particle is walked in a global step.
bool same_bytes(const ParticleStore& a, const ParticleStore& b, std::string& first_diff) {
  if (a.size() != b.size()) return false;
  bool same = true;
  for (std::size_t i = 0; i < a.size() && same; ++i)
    if (a.walk_cost[i] == 0 || b.walk_cost[i] == 0) same = false, first_diff = "walk_cost (0)";
  const ParticleStore& bb = b;
  a.for_each_field([&](const FieldInfo& info, const auto& va) {
    if (!same || std::strcmp(info.member, "walk_cost") == 0) return;
    bb.for_each_field([&](const FieldInfo& ib, const auto& vb) {
      if (std::strcmp(info.member, ib.member) != 0) return;
      using A = typename std::decay_t<decltype(va)>::value_type;
      using B = typename std::decay_t<decltype(vb)>::value_type;
      if constexpr (std::is_same_v<A, B>) {
        if (std::memcmp(va.data(), vb.data(), va.size() * sizeof(A)) != 0) {
          same = false;
          first_diff = info.member;
        }
      }
    });
  });
  return same;
}

// A few global steps of the Evrard sphere on the GPU backend (the stages of Simulation::substep
// for the global scheme), then the host store.
ParticleStore evrard_steps(unsigned groups, int steps) {
  EvrardParams ep;
  ep.n_target = 20000;
  ParticleStore store = make_evrard(ep);
  for (std::size_t i = 0; i < store.size(); ++i) store.x_h[i] = 0.76;  // one value: left off
  Box box;
  SphParams sph;
  EosParams eos;
  GravityParams grav;
  grav.softening[0] = 0.02;
  TimestepParams ts;
  ts.scheme = TimestepScheme::Global;  // test::global_steps
  auto b = make_gpu_backend(StepContext{store, box, sph, eos, grav, ts, 1.0, {}, groups});
  b->sync_from_host();
  test::global_steps(*b, store, eos, 0.0, steps);
  std::printf("[gpu memory] groups %u: %s", groups, b->timing_notes(steps).c_str());
  b->sync_to_host();
  return store;
}

}  // namespace

TEST_CASE("device particles: field groups left off the device keep their one value",
          "[gpu][memory]") {
  const std::size_t n = 5000;
  ParticleStore s;
  s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.id[i] = i + 1;
    s.type[i] = uint8_t(i % 6);
    s.pos[i] = {random_uniform(i, 9, kStreamSetup, 0), random_uniform(i, 9, kStreamSetup, 1),
                random_uniform(i, 9, kStreamSetup, 2)};
    s.mass[i] = 1.0 + double(i);
    s.x_h[i] = 0.76;
    s.z_fe[i] = 1.2e-3;
    s.spin[i] = {1.0, -2.0, 3.0};
    s.birth_time[i] = -0.25;
    s.coalescence_step[i] = 3;
    s.spawn_type[i] = 4;
  }
  REQUIRE(s.varying_field_groups() == 0u);
  DeviceParticles d;
  d.set_groups(kCoreFields);
  d.upload(s);
  const ParticleView v = d.view();
  CHECK(v.pos != nullptr);
  CHECK(v.x_h == nullptr);
  CHECK(v.spin == nullptr);
  CHECK(v.birth_time == nullptr);
  CHECK(v.coalescence_step == nullptr);
  CHECK(v.spawn_mass == nullptr);
  CHECK(d.held_bytes_per_particle() < DeviceParticles::bytes_per_particle());
  std::printf("[gpu memory] particle table %zu B per particle, core fields %zu B\n",
              DeviceParticles::bytes_per_particle(), d.held_bytes_per_particle());
  // Reverse the order on the device, with the permute buffer lent by a scratch.
  std::vector<uint32_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = uint32_t(n - 1 - i);
  DeviceScratch scratch;
  char* base = static_cast<char*>(
      scratch.acquire(n * sizeof(uint32_t) + DeviceScratch::align(0) +
                          DeviceScratch::align(n * DeviceParticles::permute_scratch_bytes()) + 256,
                      "test"));
  uint32_t* dperm = reinterpret_cast<uint32_t*>(base);
  REQUIRE(cudaMemcpy(dperm, perm.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  d.permute(dperm, {}, base + DeviceScratch::align(n * sizeof(uint32_t)));
  ParticleStore g;
  d.download(g);
  REQUIRE(g.size() == n);
  bool core_ok = true, groups_ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = perm[i];
    core_ok = core_ok && g.id[i] == s.id[j] && g.type[i] == s.type[j] && g.pos[i].x == s.pos[j].x &&
              g.mass[i] == s.mass[j];
    groups_ok = groups_ok && g.x_h[i] == 0.76 && g.z_fe[i] == 1.2e-3 && g.spin[i].y == -2.0 &&
                g.birth_time[i] == -0.25 && g.coalescence_step[i] == 3 && g.spawn_type[i] == 4 &&
                g.z_o[i] == 0.0;
  }
  CHECK(core_ok);
  CHECK(groups_ok);
  // Asking for a group again allocates it; the next upload fills it.
  d.set_groups(kSinkFields);
  d.upload(s);
  CHECK(d.view().spin != nullptr);
  CHECK(d.view().x_h == nullptr);
}

TEST_CASE(
    "GPU backend: a run without the optional field groups on the device is bit for bit "
    "the run with every field",
    "[gpu][memory][backend]") {
  const ParticleStore slim = evrard_steps(kCoreFields, 4);
  const ParticleStore full = evrard_steps(kAllFieldGroups, 4);
  std::string diff;
  const bool same = same_bytes(slim, full, diff);
  INFO("first field that differs: " << diff);
  CHECK(same);
  CHECK(slim.x_h.front() == 0.76);
}

TEST_CASE("shared scratch: generations, and leaf lists overwritten before the force pass",
          "[gpu][memory][sph]") {
  DeviceScratch scratch;
  const uint64_t g0 = scratch.generation();
  void* a = scratch.acquire(1000, "test");
  CHECK(scratch.generation() == g0 + 1);
  CHECK(scratch.bytes() >= 1000);
  void* b = scratch.acquire(500, "test");  // no growth: the same buffer, a new generation
  CHECK(a == b);
  CHECK(scratch.generation() == g0 + 2);

  // The force pass after another stage took the scratch walks the tree instead of reading the
  // overwritten lists: the same pair sets, so the forces agree with the undisturbed pass to the
  // float rounding of a different summation order.
  EvrardParams ep;
  ep.n_target = 20000;
  ParticleStore s = make_evrard(ep);
  Box box;
  SphParams sph;
  EosParams eos;
  std::vector<Vec3d> acc[2];
  std::vector<double> dudt[2];
  for (int disturbed = 0; disturbed < 2; ++disturbed) {
    DeviceParticles d;
    d.upload(s);
    DeviceOrder order;
    order.sort(d, box, false);
    GpuSph pass;
    DeviceScratch shared;
    pass.set_scratch(&shared);
    pass.smoothing_lengths(d.view(), box, sph, ActiveSet{});
    pass.density(d.view(), box, sph, ActiveSet{});
    pass.prepare_force(d.view(), eos, sph, ActiveSet{});
    if (disturbed) {
      void* p = shared.acquire(shared.bytes(), "another stage");
      REQUIRE(cudaMemset(p, 0xff, shared.bytes()) == cudaSuccess);
    }
    pass.forces(d.view(), box, sph, ActiveSet{});
    pass.throw_if_errors(sph.n_neighbours);
    ParticleStore out;
    d.download(out);
    acc[disturbed] = out.acc;
    dudt[disturbed] = out.dudt;
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < acc[0].size(); ++i) {
    const double scale = norm(acc[0][i]) + 1e-30;
    worst = std::max(worst, norm(acc[1][i] - acc[0][i]) / scale);
  }
  std::printf("[gpu memory] forces after the lists were overwritten: max rel diff %.3g\n", worst);
  // The GPU tests' bound for GPU against CPU pressure accelerations (gpu_backend/sph tests).
  CHECK(worst < 1e-4);
}

#endif
