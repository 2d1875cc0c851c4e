#include "feedback/feedback_module.hpp"

#include <memory>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "feedback/feedback.hpp"
#include "feedback/feedback_ranks.hpp"
#include "feedback/ssp_params.hpp"
#include "feedback/ssp_table.hpp"
#include "sph/eos_params.hpp"
#include "timestep/timestep_params.hpp"
#ifdef MPSPH_HAVE_CUDA
#include "feedback/feedback_gpu.hpp"
#endif

namespace mpsph {

namespace {

class FeedbackModule final : public PhysicsModule {
 public:
  FeedbackModule(const FeedbackParams& params, const Config& cfg, const UnitSystem& units,
                 Backend backend)
      : params_(params) {
    if (!params_.enabled()) return;
    if (units.nbody)
      throw Error(cfg.origin("feedback.model") +
                  ": feedback.model ssp needs physical units (units: length, mass, velocity): "
                  "stellar lifetimes are in years and SN energies in erg");
    if (eos_params_from(cfg).kind != EosKind::Adiabatic)
      throw Error(cfg.origin("feedback.model") +
                  ": feedback.model ssp needs eos.type adiabatic: the EOS of the other types sets "
                  "u and would discard the SN energy");
    if (params_.ssp.yields == YieldKind::Ww95) {
      ww95_ = load_ww95_tables(find_ww95_dir(params_.yields_dir));
      params_.ssp.ww95 = &ww95_;
    }
    table_ = std::make_unique<SspTable>(params_.ssp);
    kp_.table = table_->view();
    kp_.time_to_yr = units.time_cgs() / cgs::year;
    kp_.energy_per_sn =
        params_.ssp.e_sn_erg / (cgs::Msun * units.velocity_cgs * units.velocity_cgs);
    kp_.n_ngb = params_.n_neighbours;
    ft_.gamma = eos_params_from(cfg).gamma;
    ft_.courant = timestep_params_from(cfg).courant;
    if (backend == Backend::Cpu) return;
#ifdef MPSPH_HAVE_CUDA
    gpu_ = std::make_unique<GpuFeedback>(*table_, params_.n_neighbours);
#else
    throw Error("feedback on the GPU needs a build with CUDA");
#endif
  }

  std::string section() const override {
    return "feedback";
  }
  std::string model() const override {
    return params_.enabled() ? "ssp" : "none";
  }
  std::vector<ModuleStage> stages() const override {
    if (!params_.enabled()) return {};
    return {{"feedback", Slot::AfterForces}};
  }
  // Across ranks through StageArgs::ranks (feedback/feedback_ranks.hpp).
  bool runs_across_ranks() const override {
    return true;
  }
  void run_stage(std::size_t, const StageArgs& a) override {
    if (a.ranks) {
      injected_ =
          -apply_feedback_across_ranks(a.p, a.active, a.box, kp_, ft_, a.time, a.tick_len, *a.ranks)
               .energy;
      return;
    }
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      gpu_->apply(a.p, a.active, a.box, kp_, ft_, a.time, a.tick_len);
      return;
    }
#endif
    injected_ = -apply_feedback(a.p, a.active, a.box, kp_, ft_, a.time, a.tick_len).energy;
  }
  std::vector<EnergyTerm> energy_terms() const override {
    if (!params_.enabled()) return {};
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) return {{ kFeedbackEnergyColumn, gpu_->device_injected() }};
#endif
    return {{kFeedbackEnergyColumn, &injected_}};
  }
  std::vector<std::string> snapshot_flags() const override {
    if (!params_.enabled()) return {};
    return {"Flag_Feedback", "Flag_Metals"};
  }

 private:
  FeedbackParams params_;
  Ww95View ww95_{};
  std::unique_ptr<SspTable> table_;
  FeedbackKernParams kp_{};
  FeedbackTiming ft_{};
  double injected_ = 0.0;  // CPU backend: minus the SN energy injected in the last step
#ifdef MPSPH_HAVE_CUDA
  std::unique_ptr<GpuFeedback> gpu_;  // null on the CPU backend and for model none
#endif
};

std::unique_ptr<PhysicsModule> make_feedback(const Config& cfg, const UnitSystem& units,
                                             Backend backend) {
  return std::make_unique<FeedbackModule>(ssp_params_from(cfg), cfg, units, backend);
}

}  // namespace

ModuleEntry feedback_module_entry() {
  return {"feedback", add_feedback_params, make_feedback};
}

}  // namespace mpsph
