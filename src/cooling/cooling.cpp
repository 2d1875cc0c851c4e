#include "cooling/cooling.hpp"

#include <algorithm>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {
// Bound on the substeps of one particle in one step; beyond it the rest of the step is one
// L-stable substep. Error-controlled cooling from 1e7 K to the floor takes a few hundred.
constexpr int kMaxSubsteps = 10000;
// Fewer gas particles than this are cooled by one thread: a fork/join costs more than their work.
// A particle's implicit integration takes from one to hundreds of substeps (hot gas cooling
// through the peak of the curve: tens of microseconds), so a few dozen of them already outweigh
// a fork/join, and the threads take them a few at a time. (Until 2026-11-27: 1 000 and chunks of
// 256; a block substep with a few hundred active gas particles ran on one thread, and the
// cooling stage took 70% of the ISM disk galaxy on 16 threads, docs/PERFORMANCE.md.)
constexpr long kMinParallel = 32;
constexpr int kChunk = 4;
// The temperatures of the output: a few operations per particle.
constexpr long kMinParallelCheap = 1000;
}  // namespace

CoolingModel::CoolingModel(const CoolingParams& params, const UnitSystem& units)
    : params_(params), units_(units), kp_{} {
  kp_.mu = {params.mu_variable, params.mu};
  kp_.enabled = params.kind != CoolingKind::None;
  // T [K] = (gamma-1) mu m_H u / k_B; in N-body units T is reported for u in cgs.
  kp_.u_to_T = (params.gamma - 1.0) * cgs::m_H * units.velocity_cgs * units.velocity_cgs / cgs::k_B;
  if (!kp_.enabled) return;

  if (units.nbody)
    throw Error(
        "cooling.model = sd93 needs physical units (units.system: physical), not N-body "
        "units without a cgs scale");
  table_ = load_sd93_tables(find_cooling_table_dir(params.table_dir));
  const double rho_cgs = units.mass_cgs / (units.length_cgs * units.length_cgs * units.length_cgs);
  kp_.particle_metals = params.metals == MetalSource::Particles;
  kp_.feh_default = params.metallicity;
  kp_.x_h_default = params.hydrogen_fraction;
  kp_.nH_per_rho = rho_cgs / cgs::m_H;
  kp_.dudt_per_rate = units.time_cgs() / (rho_cgs * units.velocity_cgs * units.velocity_cgs);
  kp_.heating = params.heating;
  kp_.u_floor = mpsph::u_from_temperature(kp_.mu, kp_.u_to_T, params.floor_K);
  kp_.tolerance = params.tolerance;
  kp_.max_substeps = kMaxSubsteps;
}

CoolingKernelParams CoolingModel::kernel_params() const {
  CoolingKernelParams p = kp_;
  if (table_) p.table = table_->view();
  return p;
}

double CoolingModel::temperature(double u) const {
  return temperature_from_u(kp_.mu, kp_.u_to_T, u);
}

double CoolingModel::u_from_temperature(double T) const {
  return mpsph::u_from_temperature(kp_.mu, kp_.u_to_T, T);
}

CoolingStepResult apply_cooling(ParticleStore& s, const CoolingModel& model, double dt) {
  return apply_cooling(s.view(), model, dt);
}

CoolingStepResult apply_cooling(const ParticleView& v, const CoolingModel& model, double dt) {
  const CoolingKernelParams p = model.kernel_params();
  const long n_gas = long(v.n_gas);
  double radiated = 0.0;
  long substeps = 0;
  int max_sub = 0;
#pragma omp parallel for schedule(dynamic, kChunk) reduction(+ : radiated, substeps) \
    reduction(max : max_sub) if (n_gas >= kMinParallel)
  for (long i = 0; i < n_gas; ++i) {
    int n = 0;
    radiated += cool_stored_particle(p, v, std::size_t(i), dt, &n);
    substeps += n;
    max_sub = std::max(max_sub, n);
  }
  return {radiated, substeps, max_sub};
}

CoolingStepResult apply_cooling(const ParticleView& v, const CoolingModel& model,
                                const ActiveSet& active, double tick_len) {
  const CoolingKernelParams p = model.kernel_params();
  const long n_gas = long(active.gas_count(v.n_gas));
  double radiated = 0.0;
  long substeps = 0;
  int max_sub = 0;
#pragma omp parallel for schedule(dynamic, kChunk) reduction(+ : radiated, substeps) \
    reduction(max : max_sub) if (n_gas >= kMinParallel)
  for (long k = 0; k < n_gas; ++k) {
    const std::size_t i = active[std::size_t(k)];
    int n = 0;
    radiated += cool_stored_particle(p, v, i, particle_step(v, i, tick_len), &n);
    substeps += n;
    max_sub = std::max(max_sub, n);
  }
  return {radiated, substeps, max_sub};
}

void compute_temperature(ParticleStore& s, const CoolingModel& model) {
  const long n_gas = long(s.n_gas());
#pragma omp parallel for if (n_gas >= kMinParallelCheap)
  for (long i = 0; i < n_gas; ++i) s.temperature[i] = float(model.temperature(s.u[i]));
}

}  // namespace mpsph
