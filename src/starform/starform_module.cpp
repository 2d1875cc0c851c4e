#include "starform/starform_module.hpp"

#include <cmath>
#include <limits>
#include <memory>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/module_ranks.hpp"
#include "core/units.hpp"
#include "feedback/feedback_module.hpp"
#include "starform/sfr_csv.hpp"
#include "starform/starform.hpp"
#include "starform/starform_params.hpp"
#ifdef MPSPH_HAVE_CUDA
#include "starform/starform_gpu.hpp"
#endif

namespace mpsph {

namespace {

// The CPU stage runs the OpenMP drivers of starform.cpp, the GPU stage the CUDA drivers of
// starform_gpu.cu: both call the functions of cloud_starform_kern.hpp, katz_kern.hpp and
// star_birth_kern.hpp. Each call first writes the birth record of the stars the order stage made
// since the last call (asked for by that call, at its time), then forms this step's stars.
class StarformModule final : public PhysicsModule {
 public:
  StarformModule(const StarformParams& params, const UnitSystem& units, Backend backend,
                 bool cooling_integrates_u)
      : params_(params) {
    if (params.kind == StarformKind::None) return;
    model_ = std::make_unique<StarformModel>(params, units, cooling_integrates_u);
    if (backend == Backend::Cpu) return;
#ifdef MPSPH_HAVE_CUDA
    gpu_ = std::make_unique<GpuStarform>(*model_);
#else
    throw Error("star formation on the GPU needs a build with CUDA");
#endif
  }

  std::string section() const override {
    return "starform";
  }
  std::string model() const override {
    return starform_model_name(params_.kind);
  }
  std::vector<ModuleStage> stages() const override {
    if (!model_) return {};
    return {{"star formation", Slot::AfterForces}, {"sfr.csv", Slot::Diagnostics}};
  }
  // Across ranks: the stage acts on each particle alone (katz turns gas into a star in place; the
  // cloud models need the cold phase, which `mpsph-mpi` refuses), its energy term is summed over
  // the ranks, and sfr.csv sums the stellar mass over them (StageArgs::ranks).
  bool runs_across_ranks() const override {
    return true;
  }
  void run_stage(std::size_t index, const StageArgs& a) override {
    if (index == 1) {
#ifdef MPSPH_HAVE_CUDA
      double formed = gpu_ ? gpu_->stellar_mass(a.p) : stellar_mass_formed(a.p);
#else
      double formed = stellar_mass_formed(a.p);
#endif
      if (a.ranks) formed = a.ranks->sum(formed);  // collective: before the rank-0 test below
      if (!csv_.is_open()) return;
      // Minus the feedback module's account of the same energy.csv row (0 when feedback is off;
      // written as 0, not -0).
      const double account = energy_account(a.accounts, kFeedbackEnergyColumn);
      const double e_feedback = account != 0.0 ? -account : 0.0;
      csv_.write(a.time, formed, e_feedback);
      return;
    }
    // The stage's first call of a run (a test's, without open_outputs): nothing was asked for.
    const double decided_at = std::isnan(last_time_) ? a.time : last_time_;
    const std::size_t begin = a.type_begin[kNewStar], end = a.type_begin[kNewStar + 1];
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      gpu_->finish_spawned(a.p, begin, end, decided_at);
      gpu_->form(a.p, a.active, a.tick_len, a.step, a.time);
      last_time_ = a.time;
      return;
    }
#endif
    finish_spawned_stars(a.p, begin, end, decided_at);
    thermal_ = form_stars(a.p, a.active, *model_, a.tick_len, a.step, a.time).thermal;
    last_time_ = a.time;
  }
  std::vector<EnergyTerm> energy_terms() const override {
    if (!model_) return {};
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) return {{ "E_star_formation", gpu_->device_thermal_energy() }};
#endif
    return {{"E_star_formation", &thermal_}};
  }
  std::vector<std::string> snapshot_flags() const override {
    if (!model_) return {};
    return {"Flag_Sfr", "Flag_StellarAge", "Flag_Metals"};
  }
  void open_outputs(const std::string& dir, double time, bool restart) override {
    if (!model_) return;
    // A restart continues after the checkpoint's last step, whose stage ran at the checkpoint's
    // time: a star it asked for is born then.
    last_time_ = time;
    csv_.open(dir, model_->yr_per_time, model_->msun_per_mass, model_->erg_per_energy, time,
              restart);
  }

 private:
  StarformParams params_;
  std::unique_ptr<StarformModel> model_;  // null for model none
#ifdef MPSPH_HAVE_CUDA
  std::unique_ptr<GpuStarform> gpu_;  // null on the CPU backend and for model none
#endif
  SfrCsv csv_;
  double thermal_ = 0.0;  // CPU backend: thermal energy of the gas turned into stars last step
  // Time of the stage's last call: the birth time of the stars it asked for.
  double last_time_ = std::numeric_limits<double>::quiet_NaN();
};

std::unique_ptr<PhysicsModule> make_starform(const Config& cfg, const UnitSystem& units,
                                             Backend backend) {
  const bool cooling_integrates_u = cfg.get_string("cooling.model") != "none";
  return std::make_unique<StarformModule>(starform_params_from(cfg), units, backend,
                                          cooling_integrates_u);
}

}  // namespace

ModuleEntry starform_module_entry() {
  return {"starform", add_starform_params, make_starform};
}

}  // namespace mpsph
