// The CPU backend: OpenMP drivers of each module on the host store.
#include <algorithm>

#include "core/particle_order.hpp"
#include "core/wall_clock.hpp"
#include "gravity/gravity_solver.hpp"
#include "run/end_force_kern.hpp"
#include "run/particle_changes.hpp"
#include "run/stage_timer.hpp"
#include "run/step_backend.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator.hpp"
#include "timestep/limiter.hpp"

namespace mpsph {

namespace {

class CpuBackend final : public StepBackend {
 public:
  explicit CpuBackend(const StepContext& ctx)
      : c_(ctx), block_(ctx.tstep.scheme == TimestepScheme::Block) {}
  const char* name() const override { return "cpu"; }
  Backend kind() const override { return Backend::Cpu; }

  bool begin_segment(double length, bool single_rung) override {
    length_ = length;
    now_ = 0;
    tick_len_ = length / double(kTicks);  // exact: a power of two
    sort_pending_ = true;
    return mpsph::begin_segment(c_.store, length, single_rung);
  }
  int64_t next_tick() override { return block_ ? mpsph::next_tick(c_.store) : kTicks; }
  void predict(int64_t now) override {
    now_ = now;
    predict_to(c_.store, now, tick_len_, c_.box, c_.eos);
  }
  void order() override {
    order_wall_.push_back(wall_seconds());
    // The order-stage rule (docs/timestepping.md): sort at the first substep of every segment (the
    // global scheme: every step) and whenever particles were created or removed or changed type;
    // inside a segment the particles keep the order of its start (drifts make the tree boxes a
    // little larger, never wrong).
    const std::size_t spawned = spawn_particles(c_.store, next_id_);
    if (sort_pending_ || !block_ || now_ == kAllActive || spawned > 0 ||
        layout_needs_sort(c_.store)) {
      order_particles(c_.store, c_.box);
      drop_removed(c_.store);
      // Stages until the next order stage may change types in the gas range in place.
      c_.store.pin_n_gas();
      sort_pending_ = false;
      tree_stale_ = true;
    }
    n_gas_ = c_.store.n_gas();
    hydro_ = c_.sph.enough_gas(n_gas_);
    find_type_ranges();
    active_ = substep_active_set(c_.store, now_, block_, active_index_);
  }
  std::size_t active_count() const override { return active_.count(c_.store.size()); }
  void smoothing_lengths() override {
    if (hydro_) compute_smoothing_lengths(c_.store, c_.box, c_.sph, neighbours_, active_);
  }
  void density() override {
    if (hydro_) compute_density(c_.store, c_.box, c_.sph, neighbours_, active_);
  }
  void prepare_force() override {
    if (hydro_) mpsph::prepare_force(c_.store, c_.eos, c_.sph, active_);
  }
  void sph_forces() override {
    if (hydro_) {
      compute_sph_forces(c_.store, c_.box, c_.sph, neighbours_, active_);
      return;
    }
    const ParticleView v = c_.store.view();
    const auto n = static_cast<std::ptrdiff_t>(active_.gas_count(v.n_gas));
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n; ++k) clear_hydro_particle(v, active_[std::size_t(k)]);
  }
  void gravity() override {
    if (!c_.grav.enabled) return;
    // The octree is rebuilt after a sort, refitted to the drifted particles otherwise.
    gravity_.compute(c_.store, c_.grav, c_.G, active_,
                     tree_stale_ ? TreeUpdate::Rebuild : TreeUpdate::Refit);
    tree_stale_ = false;
  }
  void end_force() override {
    const ParticleView v = c_.store.view();
    const auto n = static_cast<std::ptrdiff_t>(active_.count(v.n));
    const bool grav = c_.grav.enabled;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n; ++k) end_force_particle(v, active_[std::size_t(k)], grav);
  }
  void run_module_stage(PhysicsModule& m, std::size_t index, double time, long step) override {
    m.run_stage(index, StageArgs{c_.store.view(), c_.box, time, step, active_, tick_len_,
                                 type_begin_, block_});
  }
  std::vector<double> module_diagnostics(PhysicsModule& m) override {
    return m.diagnostic_values(c_.store.view());
  }
  void run_module_output(PhysicsModule& m, std::size_t index, double time, long step,
                         const std::vector<EnergyAccount>& accounts) override {
    m.run_stage(index, StageArgs{c_.store.view(), c_.box, time, step, ActiveSet{}, tick_len_,
                                 type_begin_, block_, &accounts});
  }
  void correct(bool integrate_u) override {
    correct_active(c_.store, active_, tick_len_, c_.box, integrate_u);
  }
  void limit_steps() override {
    compute_timestep_criteria(c_.store, active_, c_.tstep, c_.grav, hydro_);
    // The limiter reads the neighbours' new dt_crit: a second pass. dt_limit = dt_crit under the
    // global scheme and without SPH (too few gas particles: no pair lists, no limiter); modules'
    // time-step stages may shorten it before timestep() (slot StepLimit).
    limit_timesteps(c_.store, active_, neighbours_, now_, length_,
                    block_ && hydro_ ? double(c_.tstep.limiter_factor) : 0.0);
  }
  StepTimes timestep() override {
    StepTimes st;
    st.dt = smallest_dt_limit(c_.store, active_);
    if (!block_) return st;
    if (now_ != kAllActive && now_ < kTicks)
      st.rungs_ok = assign_rungs(c_.store, active_, neighbours_, now_, length_,
                                 hydro_ ? c_.tstep.limiter_shift() : -1);
    return st;
  }
  std::vector<double> energy_last_step() override {
    std::vector<double> e;
    for (const EnergyTerm& t : c_.energy_terms) e.push_back(*t.last_step);
    return e;
  }
  Conserved conserved() override {
    return measure_conserved(c_.store, c_.grav.enabled);
  }
  HealthReport health() override {
    return check_health(c_.store.view());
  }
  std::size_t gas_count() const override {
    return n_gas_;
  }
  std::size_t particle_count() const override {
    return c_.store.size();
  }
  uint64_t next_id() const override {
    return next_id_;
  }
  void set_next_id(uint64_t id) override {
    next_id_ = id;
  }
  void assume_previous_gravity() override {
    gravity_.assume_previous();
  }
  // The wall time per step after the start-up, as the GPU backend and the ranks report it (the
  // baseline of bench/ranks_cpu.sh and bench/ranks_gpu.sh).
  std::string timing_notes(long) override { return steady_steps_line(order_wall_); }
  void sync_to_host() override {}
  void sync_from_host() override {
    n_gas_ = c_.store.n_gas();
    find_type_ranges();
    now_ = kAllActive;  // initial conditions or a restart: a synchronisation point
    sort_pending_ = true;
    tree_stale_ = true;
  }

 private:
  // The store's type ranges (StageArgs::type_begin); the store is sorted by type.
  void find_type_ranges() {
    const std::vector<uint8_t>& t = c_.store.type;
    for (int k = 0; k <= kNumTypes; ++k)
      type_begin_[std::size_t(k)] =
          std::size_t(std::lower_bound(t.begin(), t.end(), uint8_t(k)) - t.begin());
  }

  StepContext c_;
  bool block_;
  SphNeighbours neighbours_;
  GravitySolver gravity_;
  std::size_t n_gas_ = 0;
  std::array<std::size_t, kNumTypes + 1> type_begin_{};
  uint64_t next_id_ = 1;
  double length_ = 0.0, tick_len_ = 0.0;
  bool hydro_ = true;         // enough gas for SPH (more than N_B particles): the SPH stages run
  int64_t now_ = kAllActive;  // the current substep's tick; kAllActive outside a segment
  bool sort_pending_ = true;  // the next order stage sorts (a new segment has begun)
  bool tree_stale_ = true;    // the particles were sorted since the gravity tree was built
  std::vector<uint32_t> active_index_;
  ActiveSet active_;
  std::vector<double> order_wall_;  // wall clock at each order stage (timing_notes)
};

}  // namespace

std::unique_ptr<StepBackend> make_cpu_backend(const StepContext& ctx) {
  return std::make_unique<CpuBackend>(ctx);
}

}  // namespace mpsph
