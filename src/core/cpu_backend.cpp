// The CPU backend: OpenMP drivers of each module on the host store.
#include <cfloat>

#include "cooling/cooling.hpp"
#include "core/end_force_kern.hpp"
#include "core/order.hpp"
#include "core/step_backend.hpp"
#include "gravity/gravity_solver.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"
#include "timestep/integrator.hpp"

namespace mpsph {

namespace {

class CpuBackend final : public StepBackend {
 public:
  explicit CpuBackend(const StepContext& ctx) : c_(ctx) {}
  const char* name() const override { return "cpu"; }

  void predict(double dt) override { predict_step(c_.store, dt, c_.box); }
  void order() override { order_particles(c_.store, c_.box); }
  void smoothing_lengths() override {
    compute_smoothing_lengths(c_.store, c_.box, c_.sph, neighbours_);
  }
  void density() override { compute_density(c_.store, c_.box, c_.sph, neighbours_); }
  void prepare_force() override { mpsph::prepare_force(c_.store, c_.eos, c_.sph); }
  void sph_forces() override { compute_sph_forces(c_.store, c_.box, c_.sph, neighbours_); }
  void gravity() override {
    if (c_.grav.enabled) gravity_.compute(c_.store, c_.grav, c_.G);
  }
  void end_force() override {
    const ParticleView v = c_.store.view();
    const auto n = static_cast<std::ptrdiff_t>(v.n);
    const bool grav = c_.grav.enabled;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) end_force_particle(v, std::size_t(i), grav);
  }
  void cool_and_correct(double dt) override {
    // With cooling, u is integrated by the cooling module's implicit scheme (which includes the
    // hydro du/dt), not by the corrector.
    correct_step(c_.store, dt, c_.box, c_.cooling == nullptr);
    radiated_ = c_.cooling ? apply_cooling(c_.store, *c_.cooling, dt).radiated_energy : 0.0;
  }
  double timestep() override {
    return next_timestep(c_.store, c_.tstep, c_.grav);
  }
  double radiated_in_last_step() override { return radiated_; }
  Conserved conserved() override {
    return measure_conserved(c_.store, c_.grav.enabled);
  }
  void sync_to_host() override {}
  void sync_from_host() override {}

 private:
  StepContext c_;
  SphNeighbours neighbours_;
  GravitySolver gravity_;
  double radiated_ = 0.0;
};

}  // namespace

std::unique_ptr<StepBackend> make_cpu_backend(const StepContext& ctx) {
  return std::make_unique<CpuBackend>(ctx);
}

}  // namespace mpsph
