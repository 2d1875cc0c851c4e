// Radiative cooling stage (PHYSICS.md section 4): the model built once per run, and the CPU
// driver of the cooling stage (cooling_module.hpp). Per-particle physics: cooling_kern.hpp.
#pragma once

#include <optional>

#include "cooling/cooling_kern.hpp"
#include "cooling/cooling_params.hpp"
#include "cooling/cooling_table.hpp"
#include "core/active_set.hpp"
#include "core/particle_store.hpp"
#include "core/units.hpp"

namespace mpsph {

// Cooling in the run's code units: cgs constants converted once here.
class CoolingModel {
 public:
  // Loads the SD93 tables for model sd93 (throws mpsph::Error when they are missing or malformed,
  // or when the units are N-body units without a cgs scale).
  CoolingModel(const CoolingParams& params, const UnitSystem& units);

  // Parameters for the per-particle functions; the table view points into this object.
  CoolingKernelParams kernel_params() const;

  bool enabled() const { return params_.kind != CoolingKind::None; }
  const CoolingParams& params() const { return params_; }
  const UnitSystem& units() const { return units_; }
  const CoolingTable* table() const { return table_ ? &*table_ : nullptr; }

  double temperature(double u) const;         // K from code u
  double u_from_temperature(double T) const;  // code u from K
  double u_floor() const { return kp_.u_floor; }

 private:
  CoolingParams params_;
  UnitSystem units_;
  std::optional<CoolingTable> table_;
  CoolingKernelParams kp_;  // without the table view (filled by kernel_params())
};

struct CoolingStepResult {
  double radiated_energy = 0.0;  // sum over gas of m (u0 + dt a - u_new), code energy; < 0 when
                                 // heating or the floor added energy
  long substeps = 0;             // implicit substeps taken, all particles (work measure)
  int max_substeps = 0;          // most substeps of one particle
};

// Corrector update of the gas energies (the driver's hook). On entry u0 = u at step start,
// dudt0 and dudt = hydro du/dt at step start and at the predicted state, rho = density. Sets, for
// every gas particle,
//   u = solution over dt of du/dt = (dudt0 + dudt)/2 + du/dt_rad(rho, u), u >= floor,
// dudt_cool = du/dt_rad at the new u (the cooling time u/|dudt_cool| for the time-step criterion;
// 0 for model none) and temperature. Model none: u = u0 + dt (dudt0 + dudt)/2.
CoolingStepResult apply_cooling(const ParticleView& p, const CoolingModel& model, double dt);
CoolingStepResult apply_cooling(ParticleStore& store, const CoolingModel& model, double dt);
// The same for the active gas particles of individual time steps, each over its own step
// (ti_end - ti_begin) tick_len.
CoolingStepResult apply_cooling(const ParticleView& p, const CoolingModel& model,
                                const ActiveSet& active, double tick_len);

// Fills the temperature field of the gas from u (snapshots written before the first step).
void compute_temperature(ParticleStore& store, const CoolingModel& model);

}  // namespace mpsph
