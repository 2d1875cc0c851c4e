// The CPU backend: OpenMP drivers of each module on the host store.
#include "core/particle_order.hpp"
#include "gravity/gravity_solver.hpp"
#include "run/end_force_kern.hpp"
#include "run/particle_changes.hpp"
#include "run/step_backend.hpp"
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
  Backend kind() const override { return Backend::Cpu; }

  void predict(double dt) override { predict_step(c_.store, dt, c_.box); }
  void order() override {
    spawn_particles(c_.store, next_id_);
    order_particles(c_.store, c_.box);
    drop_removed(c_.store);
    n_gas_ = c_.store.n_gas();
  }
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
  void run_module_stage(PhysicsModule& m, std::size_t index, double time, double dt,
                        long step) override {
    m.run_stage(index, StageArgs{c_.store.view(), c_.box, time, dt, step});
  }
  void correct(double dt, bool integrate_u) override {
    correct_step(c_.store, dt, c_.box, integrate_u);
  }
  double timestep() override {
    return next_timestep(c_.store, c_.tstep, c_.grav);
  }
  std::vector<double> energy_last_step() override {
    std::vector<double> e;
    for (const EnergyTerm& t : c_.energy_terms) e.push_back(*t.last_step);
    return e;
  }
  Conserved conserved() override {
    return measure_conserved(c_.store, c_.grav.enabled);
  }
  HealthReport health() override { return check_health(c_.store.view()); }
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
  void assume_previous_gravity() override { gravity_.assume_previous(); }
  void sync_to_host() override {}
  void sync_from_host() override {
    n_gas_ = c_.store.n_gas();
  }

 private:
  StepContext c_;
  SphNeighbours neighbours_;
  GravitySolver gravity_;
  std::size_t n_gas_ = 0;
  uint64_t next_id_ = 1;
};

}  // namespace

std::unique_ptr<StepBackend> make_cpu_backend(const StepContext& ctx) {
  return std::make_unique<CpuBackend>(ctx);
}

}  // namespace mpsph
