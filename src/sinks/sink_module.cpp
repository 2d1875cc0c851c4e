#include "sinks/sink_module.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/module_ranks.hpp"
#include "core/units.hpp"
#include "gravity/gravity_params.hpp"
#include "setups/cloud_scales.hpp"
#include "sinks/sink_csv.hpp"
#include "sinks/sink_merge_csv.hpp"
#include "sinks/sink_params.hpp"
#include "sinks/sink_timestep_kern.hpp"
#include "sinks/sinks.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/timestep_params.hpp"
#ifdef MPSPH_HAVE_CUDA
#include "sinks/sinks_gpu.hpp"
#endif

namespace mpsph {

namespace {

class SinkModule final : public PhysicsModule {
 public:
  SinkModule(const SinkParams& params, const GravityParams& grav, const UnitSystem& units,
             Backend backend, bool block)
      : params_(params), units_(units), block_(block) {
    kp_.rho_sink = params.rho_sink;
    kp_.h_acc = params.h_acc;
    kp_.r_crit = params.critical_radius();
    kp_.G = units.G;
    kp_.eps_gas = grav.softening[kGas];
    kp_.kernel = grav.kernel;
    mp_.r_merge = params.merging_radius();
    mp_.G = units.G;
    mp_.eps_sink = grav.softening[kSink];
    mp_.kernel = grav.kernel;
    if (!params_.enabled() || backend == Backend::Cpu) return;
#ifdef MPSPH_HAVE_CUDA
    gpu_ = std::make_unique<GpuSinks>();
#else
    throw Error("sinks on the GPU need a build with CUDA");
#endif
  }

  std::string section() const override {
    return "sinks";
  }
  std::string model() const override {
    return params_.enabled() ? "bate95" : "none";
  }
  std::vector<ModuleStage> stages() const override {
    if (!params_.enabled()) return {};
    std::vector<ModuleStage> s = {{"sinks", Slot::AfterCorrect}, {"sinks.csv", Slot::Diagnostics}};
    if (block_) s.push_back({"sink steps", Slot::StepLimit});
    return s;
  }
  // Across ranks every stage runs through StageArgs::ranks (core/module_ranks.hpp).
  bool runs_across_ranks() const override {
    return true;
  }
  void run_stage(std::size_t index, const StageArgs& a) override {
    if (a.ranks) {
      run_across_ranks(index, a);
      return;
    }
    const double wake = params_.wake_radius * params_.h_acc;
    const double length = a.tick_len * double(kTicks);  // the segment (exact: a power of two)
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      if (index == 2) {
        gpu_->follow_gas_steps(a.p, a.active, a.box, wake, length);
        return;
      }
      if (index == 1) {
        const std::vector<SinkRow> rows = gpu_->rows(a.p);
        const std::vector<SinkMergeEvent> merges = gpu_->take_merges();
        pending_.insert(pending_.end(), merges.begin(), merges.end());
        write_outputs(a.time, rows);
        return;
      }
      if (kp_.rho_sink == 0.0) resolve_threshold(gpu_->max_gas_mass(a.p));
      gpu_->step(a.p, a.active, a.box, kp_, mp_, a.time, wake);
      return;
    }
#endif
    if (index == 1) {
      write_outputs(a.time, sink_rows(a.p));
      return;
    }
    if (index == 2) {
      follow_gas_steps(a.p, a.active, a.box, wake, length);
      return;
    }
    if (kp_.rho_sink == 0.0) resolve_threshold(max_gas_mass(a.p));
    sink_step(a.p, a.active, a.box, kp_, a.time);
    for (const SinkMergeRecord& r : sink_merge_step(a.p, a.active, a.box, mp_))
      pending_.push_back({a.time, r});
    wake_near_sinks(a.p, a.active, a.box, wake);
  }
  std::vector<std::string> take_log_lines() override {
    std::vector<std::string> out;
    out.swap(log_);
    return out;
  }
  std::vector<int> particle_types() const override {
    if (!params_.enabled()) return {};
    return {int(kSink)};
  }
  void open_outputs(const std::string& dir, double time, bool restart) override {
    if (!params_.enabled()) return;
    csv_.open(dir, units_, time, restart);
    if (mp_.r_merge > 0.0) merges_csv_.open(dir, units_, time, restart);
  }

 private:
  // Creation, accretion, merging and wake-up, and sinks.csv: the one-process stage on rank 0 with
  // every particle it reads or writes (ModuleRanks::run_on_root) - every sink and the gas within
  // reach of a centre: every sink and every active gas particle that passes the tests of the
  // particle alone (a possible new sink). The reach bounds where the stage looks: h_acc around a
  // centre (a candidate's group, the gas a sink may accrete), and the wake radius around a sink
  // where it ends the stage, which accretion (by at most h_acc: the sink moves to the centre of
  // mass of itself and gas within h_acc of where it was) and a merge (by at most r_merge) may have
  // moved. The sinks' steps: every rank finds the shortest step of its gas near every sink, and
  // the minima over the ranks are one process's (no gather).
  void run_across_ranks(std::size_t index, const StageArgs& a) {
    const ModuleRanks& ranks = *a.ranks;
    const ParticleView& p = a.p;
    const std::vector<uint32_t> sinks = sink_indices(p);
    if (index == 2) {  // the sinks' steps: the minima over every rank's gas near each sink
      std::vector<Vec3d> at;
      for (uint32_t s : sinks) at.push_back(p.pos[s]);
      const std::vector<double> counts = ranks.gather_values({double(sinks.size())});
      const std::vector<Vec3d> all = ranks.gather_points(at);
      if (all.empty()) return;
      const double length = a.tick_len * double(kTicks);
      std::vector<double> dt = shortest_gas_steps_near(
          p, a.active, a.box, params_.wake_radius * params_.h_acc, length, all);
      ranks.min(dt);
      std::size_t mine = 0;  // this rank's first sink in `all` (rank order)
      for (int r = 0; r < ranks.rank(); ++r) mine += std::size_t(counts[std::size_t(r)]);
      follow_shortest_gas_steps(p, sinks, dt.data() + mine, a.active.tick, length);
      return;
    }
    std::vector<uint32_t> members = sinks;
    if (index == 0) {  // (sinks.csv, index 1, needs the sinks alone)
      if (kp_.rho_sink == 0.0) resolve_threshold(ranks.max(max_gas_mass(p)));
      const double wake = params_.wake_radius * params_.h_acc;
      const double reach = std::max(params_.h_acc, wake + params_.h_acc + mp_.r_merge);
      std::vector<Vec3d> centres;
      for (uint32_t s : sinks) centres.push_back(p.pos[s]);
      const std::size_t n_gas_active = a.active.gas_count(p.n_gas);
      for (std::size_t k = 0; k < n_gas_active; ++k) {
        const std::size_t i = a.active[k];
        if (p.type[i] == kGas && sink_local_criteria(p, i, kp_) == 0) centres.push_back(p.pos[i]);
      }
      const std::vector<Vec3d> all = ranks.gather_points(centres);
      if (all.empty()) return;  // no sink and no candidate on any rank: nothing happens
      const std::vector<uint32_t> gas = particles_near(p, 0, p.n_gas, kGas, all, reach, a.box);
      members.insert(members.end(), gas.begin(), gas.end());
      std::sort(members.begin(), members.end());
    }
    ranks.run_on_root(a, members, [&](const StageArgs& w) { run_stage(index, w); });
  }
  static double max_gas_mass(const ParticleView& p) {
    double m = 0.0;
    for (std::size_t i = 0; i < p.n_gas; ++i)
      if (p.type[i] == kGas) m = std::max(m, p.mass[i]);
    return m;
  }
  // The diagnostics row: sinks.csv, then the merges since the last row (by time, then the
  // survivor's id: the GPU reports them in no fixed order) to sink_merges.csv and the log.
  void write_outputs(double time, const std::vector<SinkRow>& rows) {
    if (csv_.is_open()) csv_.write(time, rows);
    std::stable_sort(
        pending_.begin(), pending_.end(), [](const SinkMergeEvent& x, const SinkMergeEvent& y) {
          return x.time < y.time || (x.time == y.time && x.rec.id_kept < y.rec.id_kept);
        });
    if (merges_csv_.is_open()) merges_csv_.write(pending_);
    for (const SinkMergeEvent& e : pending_) log_.push_back(sink_merge_log_line(e));
    pending_.clear();
  }
  // rho_sink = 0: from the resolution, with the largest gas mass of the first step's store.
  void resolve_threshold(double m_max) {
    if (!(m_max > 0.0)) return;  // no gas: nothing can form
    kp_.rho_sink =
        jeans_resolution_density(m_max, params_.n_neighbours, params_.sound_speed, kp_.G);
  }

  SinkParams params_;
  UnitSystem units_;
  bool block_;  // timestep.scheme block: the sinks follow the gas steps (stage "sink steps")
  SinkKernParams kp_{};
  SinkMergeParams mp_{};
  SinksCsv csv_;
  SinkMergesCsv merges_csv_;
  std::vector<SinkMergeEvent> pending_;  // merges not yet written
  std::vector<std::string> log_;         // their log lines, for take_log_lines()
#ifdef MPSPH_HAVE_CUDA
  std::unique_ptr<GpuSinks> gpu_;  // null on the CPU backend and for model none
#endif
};

std::unique_ptr<PhysicsModule> make_sinks(const Config& cfg, const UnitSystem& units,
                                          Backend backend) {
  const SinkParams p = sink_params_from(cfg);
  // Gravity is on whenever sinks are (sink_params_from checks it).
  const GravityParams g = p.enabled() ? gravity_params_from(cfg) : GravityParams{};
  const bool block = timestep_params_from(cfg).scheme == TimestepScheme::Block;
  return std::make_unique<SinkModule>(p, g, units, backend, block);
}

}  // namespace

ModuleEntry sink_module_entry() {
  return {"sinks", add_sink_params, make_sinks};
}

}  // namespace mpsph
