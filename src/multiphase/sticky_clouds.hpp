// The sticky-cloud model (PHYSICS.md section 5): its parameters in code units and the OpenMP
// drivers of its stage - cloud-cloud collisions (cloud_pairing_kern.hpp, cloud_collision_kern.hpp),
// warm -> cold conversion (cloud_formation_kern.hpp) - and of the phase masses of energy.csv
// (phase_mass_kern.hpp). The CUDA drivers (sticky_clouds_gpu.hpp) call the same functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "multiphase/cloud_collision_kern.hpp"
#include "multiphase/cloud_formation_kern.hpp"
#include "multiphase/cloud_gas_exchange_kern.hpp"
#include "multiphase/cloud_viscosity_kern.hpp"
#include "multiphase/multiphase_params.hpp"
#include "multiphase/phase_mass_kern.hpp"

namespace mpsph {

struct UnitSystem;

// The parameters of the kernels in the run's code units. Throws mpsph::Error for N-body units
// without a cgs scale (Sigma_cl, n_c and T need one).
struct StickyCloudsModel {
  StickyCloudsModel(const MultiphaseParams& params, const UnitSystem& units, bool u_integrated);
  CloudInteraction interaction;
  CloudCollisionParams collision;
  CloudViscosityParams viscosity;
  CloudFormationParams formation;
  PhaseParams phase;
  CloudGasParams exchange;  // evaporation, condensation, drag
  int gas_neighbours;       // N_B of a cloud
  double courant;           // timestep.courant (wake-up of heated gas)
  bool couples_gas() const { return exchange.evaporation || exchange.c_d > 0.0; }
  // Whether the module has a time-step stage, "cloud steps": the limits of the gas that the
  // exchange changed (follow_cloud_steps; with evaporation on, also the clouds' evaporation
  // criterion) or the criterion of the viscosity among clouds (cloud_timestep_kern.hpp).
  bool limits_steps() const {
    return couples_gas() || (interaction == CloudInteraction::Viscosity && viscosity.courant > 0.0);
  }
};

// One step's collisions.
struct CloudCollisionStats {
  double radiated = 0.0;  // kinetic energy radiated [code energy]
  long collisions = 0;    // pairs that collided
  long mergers = 0;       // of which coalesced
};

// Scratch of the CPU driver, kept between steps; after a step, partner[k] is the store index of
// the partner cloud begin + k chose (kNoPartner: none).
struct CpuCloudScratch {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> local;
  std::vector<int64_t> partner;
  std::vector<double> radiated;
  std::size_t begin = 0;
};

// Collisions among the clouds [begin, end) of the store (the type range of the last order stage)
// that are active, in (sub)step `step`: partner choice, then the mutual pairs collide (a merged
// cloud records the step, apply_collision).
CloudCollisionStats collide_cloud_set(const ParticleView& p, const ActiveSet& active,
                                      const Box& box, const CloudCollisionParams& params,
                                      std::size_t begin, std::size_t end, int64_t step,
                                      double tick_len, CpuCloudScratch& scratch);

// Scratch of the viscosity driver, kept between steps, by local cloud index k (store index
// begin + k): the k nearest clouds nbr[k * k_ngb ...], their number n_nbr[k], h, rho, c.
struct CpuCloudViscosityScratch {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> local;
  std::vector<uint32_t> nbr;
  std::vector<int> n_nbr;
  std::vector<double> h, rho, c, dissipated;
  std::vector<Vec3d> acc;
};

// Scheme A over the clouds [begin, end): smoothing lengths and densities of all of them, then a
// viscous kick of the active ones (apply_viscous_kick). Returns the kinetic energy the kicks took
// out [code energy].
double cloud_viscosity(const ParticleView& p, const ActiveSet& active, const Box& box,
                       const CloudViscosityParams& params, std::size_t begin, std::size_t end,
                       double tick_len, CpuCloudViscosityScratch& scratch);

// The time-step stage: every active particle of the clouds' type range [begin, end), and every
// active gas particle (the clouds' receivers), cuts its dt_limit to its cloud_step_rate and clears
// it (limit_cloud_step, cloud_timestep_kern.hpp).
void limit_cloud_steps(const ParticleView& p, const ActiveSet& active, std::size_t begin,
                       std::size_t end);

struct CloudFormationStats {
  double thermal_energy = 0.0;  // m u of the converted gas [code energy]
  long formed = 0;
};

// Warm -> cold over the active gas, each particle at the end of its own step.
CloudFormationStats form_clouds(const ParticleView& p, const ActiveSet& active,
                                const CloudFormationParams& params, double tick_len);

// Mass of each phase (Phase order: hot, warm, cold, stars) [code mass], summed in double.
std::array<double, kNumPhases> phase_masses(const ParticleView& p, const PhaseParams& params);

}  // namespace mpsph
