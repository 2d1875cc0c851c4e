// The GPU backend (CUDA builds): the particles live in DeviceParticles for the whole run; every
// stage is a CUDA driver calling the MPSPH_HD functions of its module; the host store is written
// only by sync_to_host() (snapshots, checkpoints). One host synchronisation per (sub)step:
// timestep() reduces the next dt, the conserved sums and the particle counts in one pass and
// copies them, with the SPH error word, the modules' energy terms and (block scheme) the next
// substep's tick and active counts, in one transfer; conserved() then returns those sums until
// the state changes, and the next order stage sizes the particle changes from the counts.
// Block scheme: the active set is selected on the device after the order stage (a list of store
// indices, its size known from that transfer); begin_segment() adds one synchronisation per
// segment (the first substep's tick and the too-short check).
// As one of several MPI ranks (make_gpu_backend with a GpuRanks, run/gpu_ranks.hpp) the same
// stages run on this rank's particles, which stay on its GPU; the order stage migrates particles
// between ranks before its sort, the SPH and gravity stages reach the other ranks' particles
// through the GpuRanks, and the step's reduction is reduced over the ranks (global time steps,
// no physics modules).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/wall_clock.hpp"
#include "gravity/gravity_gpu.hpp"
#include "run/end_force_kern.hpp"
#include "run/gpu_ranks.hpp"
#include "run/longest_groups.hpp"
#include "run/particle_changes_gpu.hpp"
#include "run/stage_timer.hpp"
#include "run/step_backend.hpp"
#include "run/step_reduction_gpu.hpp"
#include "sph/sph_gpu.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/limiter_gpu.hpp"

namespace mpsph {

namespace {

__global__ void end_force_kernel(ParticleView s, ActiveSet a, std::size_t n, bool gravity) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) end_force_particle(s, a[k], gravity);
}

__global__ void clear_hydro_kernel(ParticleView s, ActiveSet a, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) clear_hydro_particle(s, a[k]);
}

class GpuBackend final : public StepBackend {
 public:
  explicit GpuBackend(const StepContext& ctx, std::unique_ptr<GpuRanks> ranks = nullptr)
      : c_(ctx), block_(ctx.tstep.scheme == TimestepScheme::Block), ranks_(std::move(ranks)) {
    if (ranks_ && block_)
      throw Error(
          "the device-resident GPU ranks run global time steps only (timestep.scheme: global)");
    for (const EnergyTerm& t : ctx.energy_terms) energy_ptrs_.push_back(t.last_step);
    // The stages whose temporaries never overlap share one buffer: the order stage's sort and
    // reorder buffers, the SPH leaf lists (density -> forces), the gravity tree's sort and - under
    // the global scheme, which rebuilds the tree at every step - its tree-ordered copies (block
    // steps keep those between substeps for the refit).
    sph_.set_scratch(&scratch_);
    gravity_.set_scratch(&scratch_, !block_);
    if (ranks_) ranks_->lend_scratch(&scratch_);
  }
  const char* name() const override {
    return ranks_ ? "gpu (MPI ranks; particles on the device)" : "gpu";
  }
  Backend kind() const override { return Backend::Gpu; }

  bool begin_segment(double length, bool single_rung) override {
    length_ = length;
    sort_pending_ = true;
    tick_len_ = length / double(kTicks);  // exact: a power of two
    now_ = 0;
    if (!block_) {
      begin_segment_gpu(d_.view(), length, true, timeline_.device_too_short());
      next_ = {uint64_t(kTicks), d_.size(), d_.view().n_gas, 0};
      changed();
      return true;
    }
    timeline_.clear_flags();
    begin_segment_gpu(d_.view(), length, single_rung, timeline_.device_too_short());
    timeline_.scan(d_.view());
    next_ = timeline_.read();  // the segment's one extra synchronisation
    changed();
    return next_.too_short == 0;
  }
  int64_t next_tick() override { return int64_t(next_.next_tick); }
  void predict(int64_t now) override {
    now_ = now;
    predict_to_gpu(d_.view(), now, tick_len_, c_.box, c_.eos);
    changed();
  }
  std::size_t active_count() const override { return active_.count(d_.size()); }
  void order() override {
    order_wall_.push_back(wall_seconds());
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
    // Across ranks: the particles other ranks own leave (marked kRemoved), theirs arrive.
    if (ranks_) {
      ranks_->migrate(d_, type_counts_);
      kinds = 0;
      for (int t = 0; t <= kNumTypes; ++t) kinds += type_counts_[std::size_t(t)] > 0;
    }
    // The order-stage rule of the CPU backend: sort at the first substep of a segment (global
    // scheme: every step) and when particles were created, removed or changed type.
    const bool sort = sort_pending_ || !block_ || now_ == kAllActive || spawned > 0 ||
                      type_counts_[kNumTypes] > 0 || type_descents_ > 0;
    if (sort) {
      order_.sort(d_, c_.box, kinds > 1, &scratch_, ranks_ ? ranks_->sort_cube() : nullptr);
      tree_stale_ = true;
    }
    sort_pending_ = false;
    // The sort put the removed particles last: cut them off.
    const std::size_t removed = type_counts_[kNumTypes];
    const bool ranges_moved = spawned > 0 || removed > 0 || type_descents_ > 0 ||
                              type_counts_[kGas] + spawn_counts_[kGas] != d_.view().n_gas;
    std::size_t n = 0;
    for (int t = 0; t < kNumTypes; ++t) {
      type_counts_[std::size_t(t)] += spawn_counts_[std::size_t(t)];
      n += type_counts_[std::size_t(t)];
    }
    type_counts_[kNumTypes] = 0;
    spawn_counts_ = {};
    type_descents_ = 0;
    d_.set_counts(n, type_counts_[kGas]);
    if (ranks_) {
      n_all_ = std::size_t(ranks_->sum(n));
      n_gas_all_ = std::size_t(ranks_->sum(type_counts_[kGas]));
      ranks_->after_order(d_);
    }
    hydro_ = c_.sph.enough_gas(ranks_ ? n_gas_all_ : type_counts_[kGas]);
    type_begin_[0] = 0;
    for (int t = 0; t < kNumTypes; ++t)
      type_begin_[std::size_t(t) + 1] = type_begin_[std::size_t(t)] + type_counts_[std::size_t(t)];
    if (block_ && now_ != kAllActive && now_ < kTicks) {
      // The next substep's counts came with the last synchronisation, which counted as gas the
      // store's gas range as the stages left it. Particles created or removed since (modules'
      // requests), or moved to another type's range by the sort (gas turned into clouds or stars,
      // clouds back into gas), make them stale: count again then. (Before 2026-11-26 only the
      // first two did: after a gas particle became a cloud, the next substep's SPH passes took
      // the first active cloud for gas, and with few active particles per warp they wrote more
      // leaf lists than were reserved - an illegal address in the force pass of
      // setups/isolated_disk_ism.yaml at its second step.)
      if (ranges_moved) {
        timeline_.scan(d_.view());
        next_ = timeline_.read();
      }
      active_ = timeline_.select(d_.view(), now_, next_.n_next, next_.n_next_gas);
      active_.lanes = gpu_task_lanes(d_.view().n_gas, active_.n_gas);
    } else {
      active_ = ActiveSet{};
    }
    changed();
  }
  // Too few gas particles for SPH (N_B or fewer; the rest went into sinks): they move without
  // pressure forces, and no limiter acts (there are no pair lists).
  void smoothing_lengths() override {
    if (!hydro_) return;
    if (ranks_)
      ranks_->smoothing_lengths(d_);
    else
      sph_.smoothing_lengths(d_.view(), c_.box, c_.sph, active_);
  }
  // Across ranks the density stage runs the EOS and the SPH forces too (their halos).
  void density() override {
    if (!hydro_) return;
    if (ranks_)
      ranks_->density_and_forces(d_);
    else
      sph_.density(d_.view(), c_.box, c_.sph, active_);
  }
  void prepare_force() override {
    if (hydro_ && !ranks_) sph_.prepare_force(d_.view(), c_.eos, c_.sph, active_);
  }
  void sph_forces() override {
    if (hydro_ && ranks_) return;
    if (hydro_) {
      sph_.forces(d_.view(), c_.box, c_.sph, active_);
      return;
    }
    const ParticleView v = d_.view();
    const std::size_t n = active_.gas_count(v.n_gas);
    if (n == 0) return;
    clear_hydro_kernel<<<cuda_blocks(n, 256), 256>>>(v, active_, n);
    cuda_check_launch("clear_hydro_kernel");
  }
  void gravity() override {
    if (!c_.grav.enabled) return;
    if (ranks_) {
      ranks_->gravity(d_);
      return;
    }
    // The octree is rebuilt after a sort, refitted to the drifted particles otherwise.
    gravity_.compute(d_.view(), c_.grav, c_.G, active_,
                     tree_stale_ ? TreeUpdate::Rebuild : TreeUpdate::Refit);
    tree_stale_ = false;
    walks_.add(gravity_.last_walk_stats());
  }
  void end_force() override {
    const ParticleView v = d_.view();
    const std::size_t n = active_.count(v.n);
    if (n == 0) return;
    end_force_kernel<<<cuda_blocks(n, 256), 256>>>(v, active_, n, c_.grav.enabled);
    cuda_check_launch("end_force_kernel");
    changed();
  }
  void run_module_stage(PhysicsModule& m, std::size_t index, double time, long step) override {
    no_module_across_ranks(m);
    m.run_stage(index,
                StageArgs{d_.view(), c_.box, time, step, active_, tick_len_, type_begin_, block_});
    changed();
    counts_valid_ = false;  // the stage may have changed types or asked for particles
  }
  void run_module_output(PhysicsModule& m, std::size_t index, double time, long step,
                         const std::vector<EnergyAccount>& accounts) override {
    no_module_across_ranks(m);
    m.run_stage(index, StageArgs{d_.view(), c_.box, time, step, ActiveSet{}, tick_len_, type_begin_,
                                 block_, &accounts});
  }
  std::vector<double> module_diagnostics(PhysicsModule& m) override {
    no_module_across_ranks(m);
    return m.diagnostic_values(d_.view());
  }
  void correct(bool integrate_u) override {
    correct_active_gpu(d_.view(), active_, tick_len_, c_.box, integrate_u);
    changed();
  }
  void limit_steps() override {
    const ParticleView v = d_.view();
    // Global scheme: dt_crit = dt_limit of every particle; modules' time-step stages may shorten
    // dt_limit (slot StepLimit), and the step's reduction takes the smallest (timestep()).
    timestep_criteria_gpu(v, active_, c_.tstep, c_.grav, hydro_);
    if (!block_) {
      changed();
      return;
    }
    timeline_.clear_flags();
    limit_timesteps_gpu(sph_, v, c_.box, active_, now_, length_,
                        hydro_ ? double(c_.tstep.limiter_factor) : 0.0);
    changed();
  }
  StepTimes timestep() override {
    StepTimes st;
    if (!block_) {
      reduce(BlockStepInfo{});
      st.dt = scalars_.dt;
      return st;
    }
    // Rungs and wake-up on the device, then the one synchronisation.
    const ParticleView v = d_.view();
    const bool in_segment = now_ != kAllActive && now_ < kTicks;
    if (in_segment) {
      new_rungs_gpu(v, active_, now_, length_, timeline_.device_too_short());
      wake_neighbours_gpu(sph_, v, c_.box, active_, now_, hydro_ ? c_.tstep.limiter_shift() : -1);
      timeline_.scan(v);
    }
    changed();
    reduce(BlockStepInfo{true, now_, timeline_.device_words()});
    st.dt = scalars_.dt;
    if (in_segment) {
      next_ = scalars_.timeline;
      st.rungs_ok = next_.too_short == 0;
    }
    return st;
  }
  std::vector<double> energy_last_step() override {
    if (!have_scalars_) reduce(BlockStepInfo{});
    return scalars_.energy;
  }
  Conserved conserved() override {
    if (!have_scalars_) reduce(BlockStepInfo{});
    return scalars_.conserved;
  }
  HealthReport health() override {
    if (!have_scalars_) reduce(BlockStepInfo{});
    return scalars_.health;
  }
  // Across ranks: of every rank, as of the last order stage.
  std::size_t gas_count() const override { return ranks_ ? n_gas_all_ : d_.view().n_gas; }
  std::size_t particle_count() const override { return ranks_ ? n_all_ : d_.size(); }
  uint64_t next_id() const override { return next_id_; }
  // Across ranks the largest of the ranks' values (rank 0 alone holds the initial conditions).
  void set_next_id(uint64_t id) override { next_id_ = ranks_ ? ranks_->max(id) : id; }
  void assume_previous_gravity() override {
    gravity_.assume_previous();
    if (ranks_) ranks_->assume_previous_gravity();
  }
  void sync_to_host() override {
    if (!host_stale_) return;
    d_.download(c_.store);
    host_stale_ = false;
  }
  void sync_from_host() override {
    // Across ranks each rank uploads only the particles it owns.
    if (ranks_) ranks_->distribute(c_.store);
    // The optional field groups that the modules use or that differ between the particles; the
    // others keep their one value on the host. Across ranks the same groups on every rank.
    unsigned groups = c_.device_field_groups | c_.store.varying_field_groups();
    if (ranks_) groups = ranks_->common_field_groups(c_.store, groups);
    d_.set_groups(groups);
    d_.upload(c_.store);
    host_stale_ = false;
    have_scalars_ = false;
    now_ = kAllActive;  // initial conditions or a restart: a synchronisation point
    sort_pending_ = true;
    tree_stale_ = true;
    active_ = ActiveSet{};
    count_on_host();
    if (ranks_) {
      n_all_ = std::size_t(ranks_->sum(d_.size()));
      n_gas_all_ = std::size_t(ranks_->sum(type_counts_[kGas]));
    }
  }
  void check_box() override {
    if (ranks_) ranks_->check_box();
  }
  void fence() override { cuda_check(cudaDeviceSynchronize(), "a stage (run.timing_sync)"); }
  // The device memory of the step's main parts, per particle (issue #16 item 4).
  std::string timing_notes(long steps) override {
    std::string ranks = ranks_ ? ranks_->timing_notes(steps) : std::string();
    if (!ranks_ && c_.grav.enabled) ranks += walks_.note();
    ranks += steady_steps_line(order_wall_);
    const std::size_t n = std::max<std::size_t>(d_.size(), 1);
    const double fields = double(d_.device_bytes()), scratch = double(scratch_.bytes());
    const double sph = double(sph_.device_bytes()), grav = double(gravity_.device_bytes());
    const GpuRanks::Memory rm = ranks_ ? ranks_->device_memory() : GpuRanks::Memory{};
    const double own = double(rm.total());
    std::string groups;
    for (int g = 0; (1u << g) <= kAllFieldGroups; ++g)
      if (d_.groups() & (1u << g))
        groups += std::string(groups.empty() ? "" : ", ") + field_group_name(g);
    char line[1000];
    int len = std::snprintf(
        line, sizeof line,
        "\nGPU memory, bytes per particle (N = %zu): %.1f in all; particle fields %.1f "
        "(%zu of the table's %zu per particle; optional field groups held: %s), shared "
        "scratch %.1f, SPH neighbour structure %.1f, gravity solver %.1f (octree nodes: "
        "%zu used, room for %zu)",
        d_.size(), (fields + scratch + sph + grav + own) / double(n), fields / double(n),
        d_.held_bytes_per_particle(), DeviceParticles::bytes_per_particle(),
        groups.empty() ? "none" : groups.c_str(), scratch / double(n), sph / double(n),
        grav / double(n), gravity_.tree_nodes(), gravity_.tree_node_capacity());
    const double per = 1.0 / double(n);
    if (ranks_ && len > 0 && std::size_t(len) < sizeof line)
      len += std::snprintf(line + len, sizeof line - std::size_t(len),
                           ", the MPI ranks' own parts %.1f (SPH work store %.1f, its neighbour "
                           "structure %.1f, halo buffers %.1f, gravity solver %.1f, LET buffers "
                           "%.1f, transfer buffer %.1f)",
                           own * per, double(rm.sph_work) * per, double(rm.sph_passes) * per,
                           double(rm.sph_halos) * per, double(rm.gravity) * per,
                           double(rm.let) * per, double(rm.transfers) * per);
    return ranks + line + "\n";
  }

 private:
  // The device-resident ranks run no module (make_rank_backend gives runs with one the
  // host-staged ranks, whose modules run across ranks on the host): a module stage here is a bug.
  void no_module_across_ranks(const PhysicsModule& m) const {
    if (ranks_)
      throw Error("internal: " + m.section() + ".model " + m.model() +
                  " reached the device-resident GPU ranks, which run no physics module");
  }
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
    type_descents_ = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      type_descents_ += i > 0 && s.type[i] < s.type[i - 1];
      ++type_counts_[std::min<std::size_t>(s.type[i], kNumTypes)];
      if (s.spawn_mass[i] > 0.0)
        ++spawn_counts_[std::min<std::size_t>(s.spawn_type[i], kNumTypes - 1)];
    }
    counts_valid_ = true;
  }
  // The step's reduction; `block` takes dt from the limited steps and copies the timeline words.
  // (Outside timestep() a reduction only serves the conserved sums, counts and health.)
  void reduce(const BlockStepInfo& block) {
    scalars_ = reduction_.run(d_.view(), c_.tstep, c_.grav.enabled, sph_.device_error_flags(),
                              energy_ptrs_, block);
    if (ranks_) ranks_->reduce(scalars_);
    have_scalars_ = true;
    type_counts_ = scalars_.type_counts;
    spawn_counts_ = scalars_.spawn_counts;
    type_descents_ = scalars_.type_descents;
    counts_valid_ = true;
    if (scalars_.error_flags) {
      sph_.clear_errors();
      throw Error(describe_gpu_sph_errors(scalars_.error_flags, c_.sph.n_neighbours));
    }
  }

  StepContext c_;
  bool block_;
  std::unique_ptr<GpuRanks> ranks_;        // null on one process
  std::size_t n_all_ = 0, n_gas_all_ = 0;  // across ranks: particles of every rank
  std::vector<double> order_wall_;         // wall clock at each order stage (timing_notes)
  bool hydro_ = true;  // enough gas for SPH (more than N_B particles): the SPH stages run
  DeviceParticles d_;
  DeviceScratch scratch_;  // lent to order_, sph_ and gravity_ in turn (core/device_scratch.hpp)
  DeviceOrder order_;
  DeviceSpawner spawner_;
  GpuSph sph_;
  GpuGravity gravity_;
  LongestGroups walks_;  // the walks' longest groups (timing_notes)
  GpuStepReduction reduction_;
  std::vector<const double*> energy_ptrs_;
  StepScalars scalars_;
  std::array<std::size_t, kNumTypes + 1> type_counts_{};  // incl. kRemoved at [kNumTypes]
  std::array<std::size_t, kNumTypes> spawn_counts_{};
  // StageArgs::type_begin: the type ranges of the last order stage.
  std::array<std::size_t, kNumTypes + 1> type_begin_{};
  std::size_t type_descents_ = 0;  // particles following one of a larger type
  bool sort_pending_ = true;       // the next order stage sorts (a segment has begun)
  bool tree_stale_ = true;         // the particles were sorted since the gravity tree was built
  bool counts_valid_ = false;
  bool have_scalars_ = false;
  bool host_stale_ = false;
  uint64_t next_id_ = 1;
  double length_ = 0.0, tick_len_ = 0.0;
  int64_t now_ = kAllActive;  // the current substep's tick; kAllActive outside a segment
  GpuTimeline timeline_;
  BlockTimeline next_{};  // the next substep: its tick and active counts (from the device)
  ActiveSet active_;
};

}  // namespace

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx) {
  return std::make_unique<GpuBackend>(ctx);
}

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx,
                                              std::unique_ptr<GpuRanks> ranks) {
  return std::make_unique<GpuBackend>(ctx, std::move(ranks));
}

}  // namespace mpsph
