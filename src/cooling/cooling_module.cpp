#include "cooling/cooling_module.hpp"

#include "cooling/cooling.hpp"
#include "cooling/cooling_gpu.hpp"
#include "cooling/cooling_params.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

namespace {

// The CPU stage runs the OpenMP driver, the GPU stage the CUDA driver: both call
// cool_stored_particle() of cooling_kern.hpp.
class CoolingModule final : public PhysicsModule {
 public:
  CoolingModule(const CoolingParams& params, const UnitSystem& units, Backend backend)
      : model_(params, units) {
    if (!model_.enabled() || backend == Backend::Cpu) return;
#ifdef MPSPH_HAVE_CUDA
    gpu_ = std::make_unique<GpuCooling>(model_);
#else
    throw Error("cooling on the GPU needs a build with CUDA");
#endif
  }

  std::string section() const override {
    return "cooling";
  }
  std::string model() const override {
    return model_.enabled() ? "sd93" : "none";
  }
  std::vector<ModuleStage> stages() const override {
    if (!model_.enabled()) return {};
    return {{"cooling", Slot::AfterForces}};
  }
  void run_stage(std::size_t, const StageArgs& a) override {
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      gpu_->apply(a.p, a.active, a.tick_len);
      return;
    }
#endif
    radiated_ = a.active.all()
                    ? apply_cooling(a.p, model_, double(kTicks) * a.tick_len).radiated_energy
                    : apply_cooling(a.p, model_, a.active, a.tick_len).radiated_energy;
  }
  bool integrates_internal_energy() const override {
    return model_.enabled();
  }
  // Each particle's u is integrated from its own state (cooling_kern.hpp).
  bool particle_local() const override {
    return true;
  }
  // The cooling rate reads X_H and Fe of each gas particle (cooling_kern.hpp).
  unsigned device_field_groups() const override {
    return model_.enabled() ? unsigned(kMetalFields) : 0u;
  }
  std::vector<EnergyTerm> energy_terms() const override {
    if (!model_.enabled()) return {};
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) return {{ "E_radiated", gpu_->device_radiated() }};
#endif
    return {{"E_radiated", &radiated_}};
  }
  std::vector<std::string> snapshot_flags() const override {
    if (!model_.enabled()) return {};
    return {"Flag_Cooling"};
  }
  void prepare_output(ParticleStore& host) const override {
    if (model_.enabled()) compute_temperature(host, model_);
  }

 private:
  CoolingModel model_;
#ifdef MPSPH_HAVE_CUDA
  std::unique_ptr<GpuCooling> gpu_;  // null on the CPU backend and for model none
#endif
  double radiated_ = 0.0;  // CPU backend: energy radiated in the last step
};

std::unique_ptr<PhysicsModule> make_cooling(const Config& cfg, const UnitSystem& units,
                                            Backend backend) {
  return std::make_unique<CoolingModule>(cooling_params_from(cfg), units, backend);
}

}  // namespace

ModuleEntry cooling_module_entry() {
  return {"cooling", add_cooling_params, make_cooling};
}

}  // namespace mpsph
