#include "run/mpi/rank_backend.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "core/active_set.hpp"
#include "core/particle_order.hpp"
#include "core/wall_clock.hpp"
#include "parallel/distributed_step.hpp"
#include "parallel/module_ranks_mpi.hpp"
#include "run/mpi/gpu_rank_link.hpp"
#include "run/mpi/rank_timing.hpp"
#include "run/particle_changes.hpp"
#include "run/ranks.hpp"
#include "run/stage_timer.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/integrator.hpp"

namespace mpsph {

namespace {

class RankBackend final : public StepBackend {
 public:
  RankBackend(const StepContext& ctx, const MpiComm& comm, Backend passes,
              const DecompositionParams& decomposition)
      : c_(ctx),
        comm_(comm),
        passes_(passes),
        decomposition_(decomposition),
        block_(ctx.tstep.scheme == TimestepScheme::Block),
        module_ranks_(ctx.store, comm) {
    // Measured weights are per particle step: under block steps a particle costs its steps.
    decomposition_.by_rung = block_ && decomposition_.measured;
  }
  const char* name() const override {
    return passes_ == Backend::Gpu ? "gpu (MPI ranks; host-staged passes)" : "cpu (MPI ranks)";
  }
  Backend kind() const override { return Backend::Cpu; }

  bool begin_segment(double length, bool single_rung) override {
    length_ = length;
    now_ = 0;
    tick_len_ = length / double(kTicks);  // exact: a power of two
    sort_pending_ = true;
    return !comm_.any(!mpsph::begin_segment(c_.store, length, single_rung));
  }
  // The global scheme: one step per segment; the block scheme: the earliest step end of any rank.
  int64_t next_tick() override {
    if (!block_) return kTicks;
    const int64_t mine = mpsph::next_tick(c_.store);
    int64_t all = kTicks;
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MIN, comm_.get());
    return all;
  }
  void predict(int64_t now) override {
    now_ = now;
    predict_to(c_.store, now, tick_len_, c_.box, c_.eos);
  }
  // The order-stage rule of one process (run/cpu_backend.cpp): the decomposition, migration and
  // order at the first substep of every segment (the global scheme: every step), at a
  // synchronisation point (initial conditions, restart) and when a module changed a type or
  // removed a particle on any rank (sinks); otherwise inside a segment every particle keeps its
  // rank and its store place. Then the active particles of this rank.
  void order() override {
    order_wall_.push_back(wall_seconds());
    const bool spawned = spawn_across_ranks();
    if (sort_pending_ || !block_ || now_ == kAllActive || spawned ||
        comm_.any(layout_needs_sort(c_.store))) {
      if (decomposition_.measured && counts_.decompositions >= 3) measure_cost_weights();
      stepper_->decompose_and_order(c_.store, first_);
      own_ = {};
      first_ = false;
      sort_pending_ = false;
      count();
      t_.decomposition += stepper_->last_decomposition_s();
      if (stepper_->last_decomposition().recut) t_.recuts += stepper_->last_decomposition_s();
      t_.order += stepper_->last_order_s();
      counts_.add(stepper_->last_decomposition());
      find_type_ranges();
    }
    active_ = substep_active_set(c_.store, now_, block_, active_index_);
    n_active_ = std::size_t(comm_.sum(uint64_t(active_.count(c_.store.size()))));
    if (decomposition_.measured) count_activations();
  }
  std::size_t active_count() const override { return n_active_; }
  void smoothing_lengths() override {
    stepper_->smoothing_lengths(c_.store, active_);
    const DistributedSphReport& r = stepper_->last_sph();
    t_.h += r.h_s;
    t_.h_passes += r.h_passes_s;
    t_.h_passes_own += r.h_own_s;
    own_.sph_s += r.h_own_s;
    counts_.h_rounds += double(r.h_rounds);
  }
  // density, EOS, Balsara switch and SPH forces with their halos (the prepare-force and SPH-force
  // stages are part of it).
  void density() override {
    stepper_->density_and_forces(c_.store, active_);
    // The halos of the global scheme put ghosts into the store and take them out again: the gas
    // range is pinned anew for the module stages (which may change types in it in place).
    c_.store.pin_n_gas();
    const DistributedSphReport& r = stepper_->last_sph();
    t_.pairs += r.pairs_s;
    t_.pairs_passes += r.pairs_passes_s;
    t_.pairs_passes_own += r.pairs_own_s;
    own_.sph_s += r.pairs_own_s;
    counts_.ghosts += double(r.ghosts_pairs);
    counts_.local_gas += double(r.n_active_gas);
  }
  void prepare_force() override {}
  void sph_forces() override {}
  void gravity() override {
    stepper_->gravity(c_.store, active_);
    const DistributedGravityReport& r = stepper_->last_gravity();
    t_.tree += r.build_s;
    t_.let_select += r.let_select_s;
    t_.let_exchange += r.let_exchange_s;
    t_.walk += r.walk_s;
    own_.gravity_s += r.walk_s;
    counts_.let_bytes += double(r.let_bytes_sent);
    if (decomposition_.measured) count_walk_units();
  }
  void end_force() override { stepper_->end_force(c_.store, active_); }
  // Only modules that run across ranks (PhysicsModule::runs_across_ranks) pass
  // make_rank_backend: particle-local ones (cooling) on this rank's particles alone, the others
  // (the cold phase, star formation, feedback, sinks) through StageArgs::ranks. The modules are
  // the CPU's on GPU ranks too (kind() is Cpu: the rank's particles are on the host).
  void run_module_stage(PhysicsModule& m, std::size_t index, double time, long step) override {
    module_ranks_.set_order_keys(&stepper_->order_keys());
    m.run_stage(index, StageArgs{c_.store.view(), c_.box, time, step, active_, tick_len_,
                                 type_begin_, block_, nullptr, &module_ranks_});
  }
  void run_module_output(PhysicsModule& m, std::size_t index, double time, long step,
                         const std::vector<EnergyAccount>& accounts) override {
    module_ranks_.set_order_keys(&stepper_->order_keys());
    m.run_stage(index, StageArgs{c_.store.view(), c_.box, time, step, ActiveSet{}, tick_len_,
                                 type_begin_, block_, &accounts, &module_ranks_});
  }
  // The modules' energy.csv columns are sums over the particles (the phase masses): summed over
  // the ranks.
  std::vector<double> module_diagnostics(PhysicsModule& m) override {
    std::vector<double> v = m.diagnostic_values(c_.store.view());
    comm_.sum(v);
    return v;
  }
  void correct(bool integrate_u) override {
    correct_active(c_.store, active_, tick_len_, c_.box, integrate_u);
  }
  void limit_steps() override { stepper_->limit_steps(c_.store, active_, now_, length_); }
  // The smallest dt_limit of the active particles of every rank; under the block scheme inside a
  // segment, the rungs and the wake-ups across ranks.
  StepTimes timestep() override {
    StepTimes st;
    st.dt = comm_.min(smallest_dt_limit(c_.store, active_));
    if (block_ && now_ != kAllActive && now_ < kTicks)
      st.rungs_ok = stepper_->assign_rungs(c_.store, active_, now_, length_);
    return st;
  }
  std::vector<double> energy_last_step() override {
    std::vector<double> e;
    for (const EnergyTerm& t : c_.energy_terms) e.push_back(comm_.sum(*t.last_step));
    return e;
  }
  Conserved conserved() override {
    const Conserved c = measure_conserved(c_.store, c_.grav.enabled);
    std::vector<double> v = {c.kinetic,
                             c.thermal,
                             c.potential,
                             c.mass,
                             c.momentum.x,
                             c.momentum.y,
                             c.momentum.z,
                             c.angular_momentum.x,
                             c.angular_momentum.y,
                             c.angular_momentum.z};
    comm_.sum(v);
    Conserved t;
    t.kinetic = v[0], t.thermal = v[1], t.potential = v[2], t.mass = v[3];
    t.momentum = {v[4], v[5], v[6]};
    t.angular_momentum = {v[7], v[8], v[9]};
    return t;
  }
  // The bits of every rank; `first` is this rank's (the driver gathers the particles to find the
  // run's first offender).
  HealthReport health() override {
    HealthReport h = check_health(c_.store.view());
    uint32_t all = 0;
    MPI_Allreduce(&h.bits, &all, 1, MPI_UINT32_T, MPI_BOR, comm_.get());
    h.bits = all;
    return h;
  }
  std::size_t gas_count() const override { return n_gas_; }
  std::size_t particle_count() const override { return n_total_; }
  uint64_t next_id() const override { return next_id_; }
  // Collective: the largest of the ranks' values (rank 0 alone holds the initial conditions).
  void set_next_id(uint64_t id) override {
    MPI_Allreduce(&id, &next_id_, 1, MPI_UINT64_T, MPI_MAX, comm_.get());
  }
  // A restart: the checkpoint's acc_grav is the previous evaluation's (the relative criterion
  // reads it); called after sync_from_host(), which built the stepper.
  void assume_previous_gravity() override {
    if (stepper_) stepper_->assume_previous_gravity();
  }
  void sync_to_host() override {}
  // The rank backend's stages split into their parts, per step, the largest over the ranks.
  std::string timing_notes(long steps) override {
    const RankTimingText text{std::string("SPH passes and gravity on ") +
                                  (passes_ == Backend::Gpu ? "the GPU (host-staged)" : "the CPU"),
                              "order", "active local gas"};
    return rank_timing_notes(comm_, text, t_, nullptr, 0, counts_, decomposition_.max_imbalance,
                             steps) +
           cost_weights_note(
               comm_, decomposition_.measured && counts_.decompositions >= 4,
               stepper_ ? stepper_->decomposition_weights() : decomposition_.weights) +
           steady_steps_line(order_wall_);
  }
  // The initial conditions or the checkpoint are in place, and with them the box (which the
  // stepper keeps a copy of).
  void check_box() override { make_stepper(); }
  void sync_from_host() override {
    make_stepper();
    first_ = true;
    now_ = kAllActive;  // initial conditions or a restart: a synchronisation point
    sort_pending_ = true;
    count();
  }

 private:
  // The stepper for the run's box (c_.box refers to the driver's, final once the initial
  // conditions or the checkpoint are in place).
  void make_stepper() {
    try {
      stepper_.emplace(c_.box, c_.sph, c_.eos, c_.grav, c_.tstep, decomposition_, comm_, c_.G,
                       passes_);
    } catch (const Error& e) {
      // The stepper refuses what does not work across ranks yet (direct or periodic gravity);
      // every rank alike, before any output is written (check_box).
      throw NotAcrossRanks(e.what());
    }
  }
  // The children of every rank's spawn requests (run/particle_changes.hpp: stars of the clouds
  // model of star formation), with ids unique over the ranks: next_id_ (the same on every rank) for
  // the first child of rank 0, each rank's in its store order after those of the ranks below it.
  // One process numbers them in its store order, by (type, key): with parents of one type (the
  // clouds) that is the ranks' order too, whose domains are key ranges in rank order, and the ids
  // are one process's (mpi run: multiphase). True on every rank when any rank made one
  // (collective).
  bool spawn_across_ranks() {
    uint64_t mine = 0;
    for (double m : c_.store.spawn_mass) mine += m > 0.0;
    uint64_t below = 0;
    MPI_Exscan(&mine, &below, 1, MPI_UINT64_T, MPI_SUM, comm_.get());
    if (comm_.rank() == 0) below = 0;  // MPI_Exscan leaves rank 0's result undefined
    const uint64_t all = comm_.sum(mine);
    if (all == 0) return false;
    uint64_t id = next_id_ + below;
    spawn_particles(c_.store, id);
    next_id_ += all;
    return true;
  }
  // The particle counts of the whole run (collective); the CLI's progress line and the timer read
  // them on rank 0 only.
  void count() {
    n_gas_ = std::size_t(comm_.sum(uint64_t(c_.store.n_gas())));
    n_total_ = std::size_t(comm_.sum(uint64_t(c_.store.size())));
  }
  // StageArgs::type_begin: the type ranges of the order stage (the store is sorted by type then;
  // module stages may change types in place until the next one).
  void find_type_ranges() {
    const std::vector<uint8_t>& t = c_.store.type;
    for (int k = 0; k <= kNumTypes; ++k)
      type_begin_[std::size_t(k)] =
          std::size_t(std::lower_bound(t.begin(), t.end(), uint8_t(k)) - t.begin());
  }

  StepContext c_;
  MpiComm comm_;
  Backend passes_;  // where the SPH passes and the gravity tree run
  // The weights of what this rank's particles cost it since the last order stage (its own work
  // in the gravity walk and the SPH passes, without waiting for other ranks): from the fourth
  // decomposition on (the start-up and step 1 find every h from scratch): seconds per particle
  // step and per neighbour of a particle step. Under block steps the segment's times over the
  // steps of its substeps' active particles; the decomposition then counts each particle's
  // steps in the next segment (DecompositionParams::by_rung).
  void measure_cost_weights() {
    stepper_->set_cost_weights(measured_cost_weights(own_.gravity_s, own_.activations,
                                                     own_.walk_units, own_.sph_s, own_.neighbours,
                                                     stepper_->decomposition_weights()));
  }
  // The substep's active particles and their cost neighbours: the weights' denominators.
  void count_activations() {
    const std::size_t n_gas = active_.gas_count(c_.store.n_gas());
    uint64_t neighbours = 0;
#pragma omp parallel for schedule(static) reduction(+ : neighbours)
    for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(n_gas); ++k) {
      const std::size_t i = active_[std::size_t(k)];
      neighbours += uint64_t(cost_neighbours(c_.store.type[i], c_.store.nngb[i]));
    }
    own_.activations += active_.count(c_.store.size());
    own_.neighbours += neighbours;
  }
  // The walk's shares (walk_cost) of the substep's active particles, just written by the walk.
  void count_walk_units() {
    const std::size_t n = active_.count(c_.store.size());
    uint64_t units = 0;
#pragma omp parallel for schedule(static) reduction(+ : units)
    for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(n); ++k)
      units += c_.store.walk_cost[active_[std::size_t(k)]];
    own_.walk_units += units;
  }
  struct {
    double gravity_s = 0.0, sph_s = 0.0;
    uint64_t activations = 0, walk_units = 0, neighbours = 0;
  } own_;
  DecompositionParams decomposition_;
  std::optional<DistributedStepper> stepper_;
  bool block_;                // block time steps (else global)
  bool first_ = true;         // the next order stage is the first of this process: cut by count
  bool sort_pending_ = true;  // the next order stage decomposes and sorts (a segment has begun)
  int64_t now_ = kAllActive;  // the current substep's tick; kAllActive outside a segment
  double length_ = 0.0, tick_len_ = 0.0;
  std::vector<uint32_t> active_index_;
  ActiveSet active_;  // this rank's active particles
  std::array<std::size_t, kNumTypes + 1> type_begin_{};
  MpiModuleRanks module_ranks_;  // what the module stages ask of the other ranks
  std::size_t n_active_ = 0;     // active particles of every rank
  std::size_t n_gas_ = 0, n_total_ = 0;
  uint64_t next_id_ = 1;
  std::vector<double> order_wall_;  // wall clock at each order stage (timing_notes)
  RankParts t_;                     // seconds of the stages' parts on this rank (timing_notes)
  RankCounts counts_;
};

}  // namespace

std::unique_ptr<StepBackend> make_rank_backend(
    const StepContext& ctx, Device requested,
    const std::vector<std::unique_ptr<PhysicsModule>>& modules, const MpiParams& mpi,
    const MpiComm& comm) {
  // GPU ranks: each rank uses GPU (its rank among the ranks of its host) modulo the host's GPUs.
  Backend passes = Backend::Cpu;
  if (resolve_device(requested) == Device::Gpu) {
    MPI_Comm host;
    MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &host);
    int local_rank = 0;
    MPI_Comm_rank(host, &local_rank);
    MPI_Comm_free(&host);
    select_gpu(local_rank);
    passes = Backend::Gpu;
  }
  for (const auto& m : modules)
    if (m->model() != "none" && !m->runs_across_ranks())
      throw NotAcrossRanks("MPI: " + m->section() + ".model " + m->model() +
                           " does not run across ranks (docs/mpi.md); set " + m->section() +
                           ".model: none or run on one rank");
  // What does not depend on the box (direct gravity) is refused now, before the initial
  // conditions are made; the driver calls check_box() once the run's box is known.
  try {
    check_gravity_across_ranks(ctx.grav, Box{});
  } catch (const Error& e) {
    throw NotAcrossRanks(e.what());
  }
  DecompositionParams decomposition;
  decomposition.max_imbalance = mpi.max_imbalance;
  decomposition.weights = {mpi.gravity_cost, 1.0};
  decomposition.measured = mpi.measured_costs;
  // GPU ranks keep their particles on the device (mpi.gpu_ranks: device, or auto) when the run
  // has global time steps and no physics module; otherwise on the host.
  if (passes == Backend::Gpu && mpi.gpu_ranks != GpuRanksMode::Host) {
    std::string why;
    if (ctx.tstep.scheme != TimestepScheme::Global) why = "block time steps";
    for (const auto& m : modules)
      if (m->model() != "none" && why.empty()) why = m->section() + ".model " + m->model();
    if (why.empty())
      return make_gpu_backend(ctx, make_gpu_rank_link(ctx, comm, decomposition, mpi.gpu_transfers));
    if (mpi.gpu_ranks == GpuRanksMode::Device)
      throw NotAcrossRanks("mpi.gpu_ranks: device needs global time steps and no physics module (" +
                           why + "); set mpi.gpu_ranks: host or auto (docs/mpi.md)");
  }
  return std::make_unique<RankBackend>(ctx, comm, passes, decomposition);
}

}  // namespace mpsph
