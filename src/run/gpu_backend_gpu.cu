// The GPU backend (CUDA builds): the particles live in DeviceParticles for the whole run; every
// stage is a CUDA driver calling the MPSPH_HD functions of its module; the host store is written
// only by sync_to_host() (snapshots, checkpoints). One host synchronisation per step: timestep()
// reduces the next dt, the conserved sums and the particle counts in one pass and copies them, with
// the SPH error word and the modules' energy terms, in one transfer; conserved() then returns
// those sums until the state changes, and the next order stage sizes the particle changes from
// the counts.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "core/particle_order_gpu.hpp"
#include "gravity/gravity_gpu.hpp"
#include "run/end_force_kern.hpp"
#include "run/particle_changes_gpu.hpp"
#include "run/step_backend.hpp"
#include "run/step_reduction_gpu.hpp"
#include "sph/sph_gpu.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator_gpu.hpp"

namespace mpsph {

namespace {

__global__ void end_force_kernel(ParticleView s, bool gravity) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) end_force_particle(s, i, gravity);
}

class GpuBackend final : public StepBackend {
 public:
  explicit GpuBackend(const StepContext& ctx) : c_(ctx) {
    if (ctx.tstep.scheme == TimestepScheme::Block)
      throw Error(
          "timestep.scheme: block (individual time steps) is not yet implemented on the GPU "
          "backend; use run.device: cpu, or timestep.scheme: global");
    for (const EnergyTerm& t : ctx.energy_terms) energy_ptrs_.push_back(t.last_step);
  }
  const char* name() const override { return "gpu"; }
  Backend kind() const override { return Backend::Gpu; }

  // The global scheme: one step per segment, every particle on rung 0 and active.
  bool begin_segment(double length, bool single_rung) override {
    tick_len_ = length / double(kTicks);  // exact: a power of two
    begin_segment_gpu(d_.view(), length, single_rung);
    changed();
    return true;
  }
  int64_t next_tick() override { return kTicks; }
  void predict(int64_t now) override {
    predict_to_gpu(d_.view(), now, tick_len_, c_.box, c_.eos);
    changed();
  }
  std::size_t active_count() const override { return d_.size(); }
  bool assign_rungs() override {
    throw Error("gpu backend: rungs of individual time steps are not yet implemented");
  }
  void order() override {
    // The counts of the last synchronisation describe the arrays as the stages left them.
    if (!counts_valid_) count_on_host();
    std::size_t spawned = 0, kinds = 0;
    for (std::size_t s : spawn_counts_) spawned += s;
    if (spawned > 0) {
      spawner_.spawn(d_, spawned, next_id_);
      next_id_ += spawned;
    }
    for (int t = 0; t <= kNumTypes; ++t)
      kinds +=
          type_counts_[std::size_t(t)] + (t < kNumTypes ? spawn_counts_[std::size_t(t)] : 0) > 0;
    order_.sort(d_, c_.box, kinds > 1);
    // The sort put the removed particles last: cut them off.
    std::size_t n = 0;
    for (int t = 0; t < kNumTypes; ++t) {
      type_counts_[std::size_t(t)] += spawn_counts_[std::size_t(t)];
      n += type_counts_[std::size_t(t)];
    }
    type_counts_[kNumTypes] = 0;
    spawn_counts_ = {};
    d_.set_counts(n, type_counts_[kGas]);
    changed();
  }
  void smoothing_lengths() override { sph_.smoothing_lengths(d_.view(), c_.box, c_.sph); }
  void density() override { sph_.density(d_.view(), c_.box, c_.sph); }
  void prepare_force() override { sph_.prepare_force(d_.view(), c_.eos, c_.sph); }
  void sph_forces() override { sph_.forces(d_.view(), c_.box, c_.sph); }
  void gravity() override {
    if (c_.grav.enabled) gravity_.compute(d_.view(), c_.grav, c_.G);
  }
  void end_force() override {
    const ParticleView v = d_.view();
    if (v.n == 0) return;
    end_force_kernel<<<cuda_blocks(v.n, 256), 256>>>(v, c_.grav.enabled);
    cuda_check_launch("end_force_kernel");
    changed();
  }
  void run_module_stage(PhysicsModule& m, std::size_t index, double time, long step) override {
    m.run_stage(index, StageArgs{d_.view(), c_.box, time, step, ActiveSet{}, tick_len_});
    changed();
    counts_valid_ = false;  // the stage may have changed types or asked for particles
  }
  void correct(bool integrate_u) override {
    correct_all_gpu(d_.view(), tick_len_, c_.box, integrate_u);
    changed();
  }
  double timestep() override {
    reduce();
    return scalars_.dt;
  }
  std::vector<double> energy_last_step() override {
    if (!have_scalars_) reduce();
    return scalars_.energy;
  }
  Conserved conserved() override {
    if (!have_scalars_) reduce();
    return scalars_.conserved;
  }
  HealthReport health() override {
    if (!have_scalars_) reduce();
    return scalars_.health;
  }
  std::size_t gas_count() const override { return d_.view().n_gas; }
  std::size_t particle_count() const override { return d_.size(); }
  uint64_t next_id() const override { return next_id_; }
  void set_next_id(uint64_t id) override { next_id_ = id; }
  void assume_previous_gravity() override { gravity_.assume_previous(); }
  void sync_to_host() override {
    if (!host_stale_) return;
    d_.download(c_.store);
    host_stale_ = false;
  }
  void sync_from_host() override {
    d_.upload(c_.store);
    host_stale_ = false;
    have_scalars_ = false;
    count_on_host();
  }

 private:
  void changed() {
    host_stale_ = true;
    have_scalars_ = false;
  }
  // Counts from the host store when no reduction has seen the current arrays (after an upload).
  void count_on_host() {
    sync_to_host();
    const ParticleStore& s = c_.store;
    type_counts_ = {};
    spawn_counts_ = {};
    for (std::size_t i = 0; i < s.size(); ++i) {
      ++type_counts_[std::min<std::size_t>(s.type[i], kNumTypes)];
      if (s.spawn_mass[i] > 0.0)
        ++spawn_counts_[std::min<std::size_t>(s.spawn_type[i], kNumTypes - 1)];
    }
    counts_valid_ = true;
  }
  void reduce() {
    scalars_ = reduction_.run(d_.view(), c_.tstep, c_.grav, c_.grav.enabled,
                              sph_.device_error_flags(), energy_ptrs_);
    have_scalars_ = true;
    type_counts_ = scalars_.type_counts;
    spawn_counts_ = scalars_.spawn_counts;
    counts_valid_ = true;
    if (scalars_.error_flags) {
      sph_.clear_errors();
      throw Error(describe_gpu_sph_errors(scalars_.error_flags, c_.sph.n_neighbours));
    }
  }

  StepContext c_;
  DeviceParticles d_;
  DeviceOrder order_;
  DeviceSpawner spawner_;
  GpuSph sph_;
  GpuGravity gravity_;
  GpuStepReduction reduction_;
  std::vector<const double*> energy_ptrs_;
  StepScalars scalars_;
  std::array<std::size_t, kNumTypes + 1> type_counts_{};  // incl. kRemoved at [kNumTypes]
  std::array<std::size_t, kNumTypes> spawn_counts_{};
  bool counts_valid_ = false;
  bool have_scalars_ = false;
  bool host_stale_ = false;
  uint64_t next_id_ = 1;
  double tick_len_ = 0.0;
};

}  // namespace

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx) {
  return std::make_unique<GpuBackend>(ctx);
}

}  // namespace mpsph
