// Time-step criteria of the cold phase (docs/multiphase.md "Time steps of the clouds"). Pure
// MPSPH_HD functions shared by the OpenMP drivers (cloud_gas_exchange.cpp, sticky_clouds.cpp) and
// the CUDA drivers (cloud_gas_exchange_gpu.cu, sticky_clouds_gpu.cu).
//
//   evaporation      dt_i <= C_evap m_i / |mdot_i|            (multiphase.evaporation_courant)
//   cloud viscosity  dt_i <= C_visc h_i / (c_i + max_j |v_ij|) (multiphase.viscosity_courant)
//
// The cold-phase stage (slot AfterForces) knows mdot, h and c; the step's criteria come after it
// (slot StepLimit). A criterion is carried from one to the other as a rate, the field
// cloud_step_rate = 1/dt (0: no limit, the value of a fresh store), the largest of the stage's
// criteria (record_cloud_step_rate). The module's time-step stage then cuts the cloud's dt_limit
// to 1/rate and clears the rate (limit_cloud_step), so every step starts from 0 and a criterion
// is never applied twice. A criterion with C = 0 is off.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/annotation.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

// |mdot| / (C_evap m) [1/T]: the inverse of the evaporation (or condensation) time step of a cloud
// of mass m changing mass at mdot; 0 when off (C_evap = 0), without exchange or without mass.
MPSPH_HD double evaporation_step_rate(double m, double mdot, double c_evap) {
  if (!(c_evap > 0.0) || !(m > 0.0) || mdot == 0.0) return 0.0;
  return std::fabs(mdot) / (c_evap * m);
}

// (c + v_max) / (C_visc h) [1/T]: the inverse of the signal-speed step of a cloud of smoothing
// length h, signal speed c (its dispersion with the floor sigma_c) and largest relative speed
// v_max to the clouds it interacts with; 0 when off or without a smoothing length (fewer than 2
// clouds).
MPSPH_HD double viscosity_step_rate(double h, double c, double v_max, double c_visc) {
  if (!(c_visc > 0.0) || !(h > 0.0)) return 0.0;
  return (c + v_max) / (c_visc * h);
}

// Cloud i's rate becomes the larger of its own and `rate` (several criteria of one stage).
MPSPH_HD void record_cloud_step_rate(const ParticleView& p, std::size_t i, double rate) {
  if (rate > p.cloud_step_rate[i]) p.cloud_step_rate[i] = rate;
}

// dt_limit <= 1/rate of particle i when it is of type `type`, then the rate is cleared.
MPSPH_HD void apply_step_rate(const ParticleView& p, std::size_t i, int type) {
  const double rate = p.cloud_step_rate[i];
  if (rate > 0.0) {
    const double dt = 1.0 / rate;
    if (int(p.type[i]) == type && dt < p.dt_limit[i]) p.dt_limit[i] = dt;
  }
  p.cloud_step_rate[i] = 0.0;
}

// The time-step stage of an active particle i of the clouds' type range: dt_limit <= 1/rate, then
// the rate is cleared (also for a cloud that turned into gas or was removed in the step).
MPSPH_HD void limit_cloud_step(const ParticleView& p, std::size_t i) {
  apply_step_rate(p, i, kCloud);
}

// The same for an active gas particle of the gas range, a cloud's receiver (follow_cloud_steps
// of cloud_gas_exchange_kern.hpp): dt_limit <= its cloud's step, then the rate is cleared.
MPSPH_HD void limit_receiver_step(const ParticleView& p, std::size_t j) {
  apply_step_rate(p, j, kGas);
}

}  // namespace mpsph
