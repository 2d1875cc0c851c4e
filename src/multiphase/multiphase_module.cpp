#include "multiphase/multiphase_module.hpp"

#include <algorithm>
#include <cstdio>

#include "cooling/cooling_params.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/module_ranks.hpp"
#include "core/units.hpp"
#include "feedback/gas_neighbours.hpp"
#include "gravity/gravity_kern.hpp"
#include "gravity/gravity_params.hpp"
#include "multiphase/cloud_gas_exchange.hpp"
#include "multiphase/multiphase_params.hpp"
#include "multiphase/sticky_clouds.hpp"
#include "multiphase/sticky_clouds_gpu.hpp"
#ifdef MPSPH_HAVE_CUDA
#include "multiphase/cloud_gas_exchange_gpu.hpp"
#endif

namespace mpsph {

namespace {

// The CPU stage runs the OpenMP drivers of sticky_clouds.cpp, the GPU stage the CUDA drivers of
// sticky_clouds_gpu.cu: both call the functions of cloud_pairing_kern.hpp and
// cloud_formation_kern.hpp.
class MultiphaseModule final : public PhysicsModule {
 public:
  MultiphaseModule(const MultiphaseParams& params, const UnitSystem& units, Backend backend,
                   bool cooling_integrates_u, const GravityParams& gravity)
      : params_(params) {
    if (params.kind == MultiphaseKind::None) return;
    model_ = std::make_unique<StickyCloudsModel>(params, units, cooling_integrates_u);
    model_->collision.self_gravity = gravity.enabled;
    model_->collision.kernel = gravity.kernel;
    model_->collision.eps2 = pair_eps2(gravity.softening[kCloud], gravity.softening[kCloud]);
    if (backend == Backend::Cpu) return;
#ifdef MPSPH_HAVE_CUDA
    gpu_ = std::make_unique<GpuStickyClouds>(*model_);
    if (model_->couples_gas())
      gpu_exchange_ =
          std::make_unique<GpuCloudGasExchange>(model_->exchange, timing(), model_->gas_neighbours);
#else
    throw Error("multiphase on the GPU needs a build with CUDA");
#endif
  }

  std::string section() const override {
    return "multiphase";
  }
  std::string model() const override {
    return model_ ? "sticky_clouds" : "none";
  }
  std::vector<ModuleStage> stages() const override {
    if (!model_) return {};
    std::vector<ModuleStage> s = {{"cold phase", Slot::AfterForces}};
    // The clouds' time-step criteria (evaporation, viscosity) and their receivers' limits,
    // recorded by the cold phase.
    if (model_->limits_steps()) s.push_back({"cloud steps", Slot::StepLimit});
    return s;
  }
  void run_stage(std::size_t index, const StageArgs& a) override {
    const std::size_t begin = a.type_begin[kCloud], end = a.type_begin[kCloud + 1];
    if (index == 1) {
#ifdef MPSPH_HAVE_CUDA
      if (gpu_) {
        gpu_->limit_steps(a.p, a.active, begin, end);
        return;
      }
#endif
      limit_cloud_steps(a.p, a.active, begin, end);
      return;
    }
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      if (model_->interaction == CloudInteraction::Viscosity)
        gpu_->viscosity(a.p, a.active, a.box, begin, end, a.tick_len);
      else
        gpu_->collide(a.p, a.active, a.box, begin, end, a.step, a.tick_len);
      if (gpu_exchange_) gpu_exchange_->apply(a.p, a.active, a.box, begin, end, a.tick_len);
      gpu_->form_clouds(a.p, a.active, a.tick_len);
      return;
    }
#endif
    if (a.ranks) {
      interact_across_ranks(a);
    } else {
      interact(a);
    }
    formation_ = form_clouds(a.p, a.active, model_->formation, a.tick_len).thermal_energy;
  }
  // Across ranks: the clouds' interactions gathered on rank 0 (interact_across_ranks), the warm
  // -> cold conversion on each particle, the stage steps on each particle, the phase masses
  // summed by the rank backend.
  bool runs_across_ranks() const override {
    return true;
  }
  std::vector<EnergyTerm> energy_terms() const override {
    if (!model_) return {};
    // Scheme B radiates in collisions, scheme A dissipates by viscosity.
    const std::string column =
        model_->interaction == CloudInteraction::Viscosity ? "E_cloud_viscosity" : "E_collisions";
    std::vector<EnergyTerm> t;
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      t = {{column, gpu_->device_interaction_energy()},
           { "E_cloud_formation",
             gpu_->device_formation_energy() }};
      const double* acc = gpu_exchange_ ? gpu_exchange_->device_accounts() : nullptr;
      if (model_->exchange.evaporation) t.push_back({"E_evaporation", acc});
      if (model_->exchange.c_d > 0.0) {
        t.push_back({"E_drag", acc + 1});
        t.push_back({"E_drag_heat", acc + 2});
      }
      return t;
    }
#endif
    t = {{column, &interaction_}, {"E_cloud_formation", &formation_}};
    if (model_->exchange.evaporation) t.push_back({"E_evaporation", &evaporation_});
    if (model_->exchange.c_d > 0.0) {
      t.push_back({"E_drag", &drag_});
      t.push_back({"E_drag_heat", &drag_heat_});
    }
    return t;
  }
  std::vector<int> particle_types() const override {
    if (!model_) return {};
    return {kCloud};
  }
  std::vector<std::string> diagnostic_columns() const override {
    if (!model_) return {};
    return {"M_hot", "M_warm", "M_cold", "M_stars"};
  }
  std::string diagnostic_header() const override {
    if (!model_) return "";
    char text[1200];
    std::snprintf(text, sizeof text,
                  "multiphase: E_collisions (scheme collisions) = kinetic energy radiated in "
                  "cloud-cloud collisions, E_cloud_viscosity (scheme viscosity) = kinetic energy "
                  "dissipated by the viscosity among the clouds, E_cloud_formation = thermal "
                  "energy of the gas turned into clouds, E_evaporation = thermal energy the cloud "
                  "<-> gas mass exchange took out of the gas (condensation, > 0) minus the thermal "
                  "energy evaporated mass and clouds turned back into gas brought in (at u_h), "
                  "E_drag = kinetic energy the drag dissipated, E_drag_heat = minus the heat the "
                  "drag put into the u of the clouds' gas neighbours (-E_drag, unless the floor of "
                  "a receiver's u added energy); phase masses "
                  "in code mass: M_hot = gas with T > %g K, M_warm = gas with T <= %g K, M_cold = "
                  "clouds (type 2), M_stars = stars (types 3, 4); T from u with cooling.mu_model",
                  params_.hot_K, params_.hot_K);
    return text;
  }
  std::vector<double> diagnostic_values(const ParticleView& p) override {
    if (!model_) return {};
#ifdef MPSPH_HAVE_CUDA
    if (gpu_) {
      const auto m = gpu_->phase_masses(p);
      return {m.begin(), m.end()};
    }
#endif
    const auto m = phase_masses(p, model_->phase);
    return {m.begin(), m.end()};
  }

 private:
  // The clouds' interactions with each other (collisions or viscosity) and with the gas
  // (evaporation, condensation, drag), on the CPU.
  void interact(const StageArgs& a) {
    const std::size_t begin = a.type_begin[kCloud], end = a.type_begin[kCloud + 1];
    if (model_->interaction == CloudInteraction::Viscosity)
      interaction_ = cloud_viscosity(a.p, a.active, a.box, model_->viscosity, begin, end,
                                     a.tick_len, viscosity_scratch_);
    else
      interaction_ = collide_cloud_set(a.p, a.active, a.box, model_->collision, begin, end, a.step,
                                       a.tick_len, scratch_)
                         .radiated;
    if (model_->couples_gas()) {
      const CloudGasStats st = exchange_cloud_gas(a.p, a.active, a.box, model_->exchange, timing(),
                                                  model_->gas_neighbours, begin, end, a.tick_len);
      evaporation_ = st.evaporation;
      drag_ = st.drag_work;
      drag_heat_ = -st.drag_heat;
    }
  }
  // interact() on rank 0 with every particle it reads or writes (ModuleRanks::run_on_root): the
  // active clouds (collisions) or every cloud (a viscosity neighbour may be any cloud) and, when
  // the clouds exchange mass and momentum with the gas, the gas within each active cloud's N_B + 1
  // nearest gas particles of its own rank (the other ranks' can only come closer: its N_B nearest
  // over all the gas lie within). Its energy accounts are rank 0's; the other ranks' are 0 for the
  // step.
  void interact_across_ranks(const StageArgs& a) {
    interaction_ = evaporation_ = drag_ = drag_heat_ = 0.0;
    const ParticleView& p = a.p;
    // Collisions pair active clouds only (cloud_collides_now), and the grid they are found on
    // only chooses which pairs are tested: the active clouds suffice (under block steps a small
    // part of them). The viscosity's smoothing lengths and densities take every cloud.
    const bool all_clouds = model_->interaction == CloudInteraction::Viscosity;
    std::vector<uint32_t> members;
    for (std::size_t i = 0; i < p.n; ++i)
      if (p.type[i] == kCloud && (all_clouds || a.active.contains(p.ti_end, i)))
        members.push_back(uint32_t(i));
    if (model_->couples_gas()) {
      std::vector<Vec3d> centre;
      const std::size_t begin = a.type_begin[kCloud], end = a.type_begin[kCloud + 1];
      for (std::size_t i = begin; i < end; ++i)
        if (p.type[i] == kCloud && a.active.contains(p.ti_end, i)) centre.push_back(p.pos[i]);
      // No grid over this rank's gas when none of its clouds is active (the gathers are
      // collective all the same).
      const std::vector<double> reach =
          centre.empty()
              ? std::vector<double>{}
              : gas_reach(p, a.box, build_gas_grid(p, a.box), centre, model_->gas_neighbours);
      const std::vector<Vec3d> all = a.ranks->gather_points(centre);
      const std::vector<double> all_reach = a.ranks->gather_values(reach);
      const std::vector<uint32_t> gas = particles_near(p, 0, p.n_gas, kGas, all, all_reach, a.box);
      members.insert(members.end(), gas.begin(), gas.end());
      std::sort(members.begin(), members.end());
    }
    a.ranks->run_on_root(a, members, [&](const StageArgs& w) { interact(w); });
  }
  FeedbackTiming timing() const {
    FeedbackTiming ft;
    ft.gamma = params_.gamma;
    ft.courant = model_->courant;
    return ft;
  }

  MultiphaseParams params_;
  std::unique_ptr<StickyCloudsModel> model_;  // null for model none
#ifdef MPSPH_HAVE_CUDA
  std::unique_ptr<GpuStickyClouds> gpu_;               // null on the CPU backend and for model none
  std::unique_ptr<GpuCloudGasExchange> gpu_exchange_;  // null also without evaporation and drag
#endif
  CpuCloudScratch scratch_;
  CpuCloudViscosityScratch viscosity_scratch_;
  double interaction_ = 0.0;  // CPU backend: energy radiated (collisions) or dissipated
                              // (viscosity) among the clouds in the last step
  double formation_ = 0.0;    // CPU backend: thermal energy of the gas turned into clouds
  double evaporation_ = 0.0;  // CPU backend: E_evaporation of the last step
  double drag_ = 0.0;         // CPU backend: kinetic energy the drag dissipated in the last step
  double drag_heat_ = 0.0;    // CPU backend: minus the same energy, given to the gas
};

std::unique_ptr<PhysicsModule> make_multiphase(const Config& cfg, const UnitSystem& units,
                                               Backend backend) {
  const bool cooling_integrates_u = cooling_params_from(cfg).kind != CoolingKind::None;
  const MultiphaseParams params = multiphase_params_from(cfg);
  // The gravity section only matters to the clouds (coalescences under self-gravity): read it
  // only when the model is on, so that a run without clouds needs no softening for this module.
  GravityParams gravity;
  gravity.enabled = false;
  if (params.kind != MultiphaseKind::None) gravity = gravity_params_from(cfg);
  return std::make_unique<MultiphaseModule>(params, units, backend, cooling_integrates_u, gravity);
}

}  // namespace

ModuleEntry multiphase_module_entry() {
  return {"multiphase", add_multiphase_params, make_multiphase};
}

}  // namespace mpsph
