// THE field table of the particle store. Every per-particle quantity is declared here once, with
// its HDF5 name, physical dimension, whether it must survive between steps, and which particle
// types carry it. Host storage, device storage, reordering, checkpoints and snapshot output are all
// generated from this list: adding a field is a one-line change here.
//
// X(member, element type, HDF5 dataset name, dimension {length, mass, velocity exponents},
//   persistence, types, device group, description)
//   persistence: Kept    = state, restored from checkpoints
//                Scratch = not in checkpoints: recomputed by the step, or (start-of-step state,
//                          ticks) valid within one synchronisation segment (may still be written
//                          to snapshots on request)
//   types:       the particle types that carry the field (TypeMask): AllTypes, GasOnly, CloudsOnly,
//                StarsOnly (types 3 and 4) or SinksOnly. Snapshots write a field only into the
//                PartTypeN groups of its types, and checkpoints store it only for those particles.
//   dimension:   code units are length L, mass M, velocity V; time is L/V.
//   device group: FieldGroup; kCoreFields are on the device in every GPU run, the other groups
//                only when the run needs them (core/device_particles.hpp).
#pragma once

#include <cstdint>

#include "core/vec3.hpp"

namespace mpsph {

struct UnitDim {
  int length, mass, velocity;
};

enum class Persistence { Kept, Scratch };
// One bit per particle type (DESIGN.md section 6): 0 gas, 1 dark matter, 2 cold clouds, 3 initial
// stars, 4 stars formed in the run, 5 sinks.
enum TypeMask : unsigned {
  GasOnly = 1u << 0,
  CloudsOnly = 1u << 2,
  GasAndClouds = GasOnly | CloudsOnly,
  StarsOnly = (1u << 3) | (1u << 4),
  SinksOnly = 1u << 5,
  AllTypes = 0x3Fu,
};

// Groups of fields that the GPU backend keeps on the device only when the run needs them (issue
// #16 item 4, docs/gpu.md "Device memory"): when no module of the run touches a group and its
// values are the same for every particle, the group stays on the host alone (its value is
// constant for the whole run). kCoreFields are always on the device.
enum FieldGroup : unsigned {
  kCoreFields = 0,
  kCloudFields = 1u << 0,  // CloudsOnly (the cold phase)
  kStarFields = 1u << 1,   // StarsOnly (star formation, feedback)
  kSinkFields = 1u << 2,   // SinksOnly (sinks)
  kMetalFields = 1u << 3,  // X_H, O and Fe mass fractions (cooling, enrichment, the cold phase)
  kSpawnFields = 1u << 4,  // particle creation requests
  kAllFieldGroups = 0x1Fu,
};

// The name of group bit `g` (0 .. 4), for reports.
constexpr const char* field_group_name(int g) {
  constexpr const char* names[] = {"clouds", "stars", "sinks", "metals", "spawn"};
  return g >= 0 && g < 5 ? names[g] : "?";
}

// clang-format off
#define MPSPH_PARTICLE_FIELDS(X)                                                                    \
  /* --- state (kept between steps, in checkpoints) --- */                                         \
  X(pos,      Vec3d,    "Coordinates",         (UnitDim{1, 0, 0}),  Persistence::Kept,    AllTypes, kCoreFields, "position")                 \
  X(vel,      Vec3d,    "Velocities",          (UnitDim{0, 0, 1}),  Persistence::Kept,    AllTypes, kCoreFields, "velocity")                 \
  X(mass,     double,   "Masses",              (UnitDim{0, 1, 0}),  Persistence::Kept,    AllTypes, kCoreFields, "particle mass")            \
  X(id,       uint64_t, "ParticleIDs",         (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kCoreFields, "unique particle id")       \
  X(type,     uint8_t,  "",                    (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kCoreFields, "particle type 0..5")       \
  X(u,        double,   "InternalEnergy",      (UnitDim{0, 0, 2}),  Persistence::Kept,    GasOnly, kCoreFields,  "specific internal energy") \
  X(h,        float,    "SmoothingLength",     (UnitDim{1, 0, 0}),  Persistence::Kept,    GasOnly, kCoreFields,  "smoothing length (kernel support 2h)") \
  X(rho,      float,    "Density",             (UnitDim{-3, 1, 0}), Persistence::Kept,    GasOnly, kCoreFields,  "SPH density")              \
  X(acc,      Vec3d,    "Acceleration",        (UnitDim{-1, 0, 2}), Persistence::Kept,    AllTypes, kCoreFields, "total acceleration at the last force evaluation") \
  X(dudt,     double,   "dUdt",                (UnitDim{-1, 0, 3}), Persistence::Kept,    GasOnly, kCoreFields,  "du/dt at the last force evaluation") \
  X(x_h,      double,   "HydrogenMassFraction", (UnitDim{0, 0, 0}), Persistence::Kept,    AllTypes, kMetalFields, "hydrogen mass fraction X_H (0 = not set: cooling uses its configured X_H and [Fe/H])") \
  X(z_fe,     double,   "IronMassFraction",    (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kMetalFields, "iron mass fraction")       \
  X(z_o,      double,   "OxygenMassFraction",  (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kMetalFields, "oxygen mass fraction")     \
  /* --- sinks (src/sinks/, docs/sinks.md) --- */                                                  \
  X(spin,     Vec3d,    "Spin",                (UnitDim{1, 1, 1}),  Persistence::Kept,    SinksOnly, kSinkFields, "angular momentum of the accreted gas about the sink (orbital, at accretion)") \
  X(accreted_mass, double, "AccretedMass",     (UnitDim{0, 1, 0}),  Persistence::Kept,    SinksOnly, kSinkFields, "mass the sink accreted since it formed (its first particle not counted)") \
  X(formation_time, double, "FormationTime",   (UnitDim{1, 0, -1}), Persistence::Kept,    SinksOnly, kSinkFields, "time the sink formed") \
  /* --- stars (types 3 initial, 4 formed in the run; src/starform/, docs/starform.md) --- */       \
  X(birth_time, double, "BirthTime",           (UnitDim{1, 0, -1}), Persistence::Kept,    StarsOnly, kStarFields, "time the star's population formed (initial stars: from the ICs, else 0)") \
  X(initial_mass, double, "InitialMass",       (UnitDim{0, 1, 0}),  Persistence::Kept,    StarsOnly, kStarFields, "mass of the stellar population at birth (its SSP returns mass per unit of it)") \
  X(birth_z,  double,   "Metallicity",         (UnitDim{0, 0, 0}),  Persistence::Kept,    StarsOnly, kStarFields, "total metal mass fraction of the gas the star formed from (sets its SSP lifetimes and yields)") \
  X(galaxy_id, int32_t, "GalaxyID",            (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kCoreFields, "galaxy the particle was set up in (disk_galaxy: 1; merger: 1 or 2; 0 = not set)") \
  /* --- cold clouds (src/multiphase/, docs/multiphase.md) --- */                                   \
  X(coalescence_step, int64_t, "",             (UnitDim{0, 0, 0}),  Persistence::Scratch, CloudsOnly, kCloudFields, "1 + index of the (sub)step whose cold-phase stage last merged another cloud into this one (0 = none): the coalescence event that star formation (clouds_trigger coalescence) reads in the same step") \
  /* --- particle creation requests (run/particle_changes.hpp), applied by the next order stage --- */ \
  X(spawn_mass, double, "",                    (UnitDim{0, 1, 0}),  Persistence::Kept,    AllTypes, kSpawnFields, "mass of a new particle this one gives birth to at the next order stage (0 = none)") \
  X(spawn_type, uint8_t, "",                   (UnitDim{0, 0, 0}),  Persistence::Kept,    AllTypes, kSpawnFields, "type of that new particle") \
  /* --- per-step quantities (recomputed) --- */                                                   \
  X(acc_grav, Vec3d,    "GravityAcceleration", (UnitDim{-1, 0, 2}), Persistence::Kept,    AllTypes, kCoreFields, "gravitational acceleration (kept: |a_old| of the relative opening criterion)") \
  X(cloud_step_rate, double, "",            (UnitDim{-1, 0, 1}), Persistence::Scratch, GasAndClouds, kCloudFields, "1 / the time-step limit the cold-phase stage of the particle's last step set (a cloud: evaporation, cloud viscosity; a gas receiver of the exchange: its cloud's step; 0 = none), consumed by its time-step stage (multiphase/cloud_timestep_kern.hpp)") \
  X(pot,      double,   "Potential",           (UnitDim{0, 0, 2}),  Persistence::Scratch, AllTypes, kCoreFields, "gravitational potential per unit mass") \
  X(walk_cost, uint32_t, "",                   (UnitDim{0, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "the particle's share of its target group's last gravity tree walk (GPU: SM clock cycles of the walking warp; CPU: its interactions; 0 = not walked), the MPI decomposition's gravity cost (core/particle_cost.hpp)") \
  X(divv,     float,    "DivV",                (UnitDim{-1, 0, 1}), Persistence::Kept,    GasOnly, kCoreFields,  "SPH velocity divergence (kept: drifts rho and h of inactive particles)") \
  X(curlv,    float,    "CurlV",               (UnitDim{-1, 0, 1}), Persistence::Scratch, GasOnly, kCoreFields,  "|curl v| (SPH estimate)")  \
  X(pressure, float,    "Pressure",            (UnitDim{-3, 1, 2}), Persistence::Scratch, GasOnly, kCoreFields,  "pressure")                 \
  X(csound,   float,    "SoundSpeed",          (UnitDim{0, 0, 1}),  Persistence::Scratch, GasOnly, kCoreFields,  "sound speed")              \
  X(balsara,  float,    "Balsara",             (UnitDim{0, 0, 0}),  Persistence::Kept,    GasOnly, kCoreFields,  "Balsara switch factor f_i (kept: inactive neighbours)") \
  X(nngb,     int32_t,  "NumNeighbours",       (UnitDim{0, 0, 0}),  Persistence::Scratch, GasOnly, kCoreFields,  "neighbours inside 2h")     \
  X(vsig,     float,    "MaxSignalVelocity",   (UnitDim{0, 0, 1}),  Persistence::Scratch, GasOnly, kCoreFields,  "max viscous signal velocity") \
  X(temperature, float, "Temperature",         (UnitDim{0, 0, 0}),  Persistence::Scratch, GasOnly, kCoreFields,  "temperature in K, from u and mu (set by the cooling stage)") \
  X(dudt_cool, double,  "CoolingRate",         (UnitDim{-1, 0, 3}), Persistence::Scratch, GasOnly, kCoreFields,  "radiative du/dt (heating - cooling; < 0 when cooling) at the end of the step") \
  /* --- state at the start of each particle's current step (predictor-corrector base) --- */ \
  X(pos0,     Vec3d,    "",                    (UnitDim{1, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "position at step start")   \
  X(vel0,     Vec3d,    "",                    (UnitDim{0, 0, 1}),  Persistence::Scratch, AllTypes, kCoreFields, "velocity at step start")   \
  X(u0,       double,   "",                    (UnitDim{0, 0, 2}),  Persistence::Scratch, GasOnly, kCoreFields,  "u at step start")          \
  X(acc0,     Vec3d,    "",                    (UnitDim{-1, 0, 2}), Persistence::Scratch, AllTypes, kCoreFields, "acceleration at step start") \
  X(dudt0,    double,   "",                    (UnitDim{-1, 0, 3}), Persistence::Scratch, GasOnly, kCoreFields,  "du/dt at step start") \
  X(rho0,     float,    "",                    (UnitDim{-3, 1, 0}), Persistence::Scratch, GasOnly, kCoreFields,  "density at step start (last evaluation)") \
  X(h0,       float,    "",                    (UnitDim{1, 0, 0}),  Persistence::Scratch, GasOnly, kCoreFields,  "smoothing length at step start (last evaluation)") \
  /* --- individual time steps (timestep/block_timeline_kern.hpp) --- */                          \
  X(dt_limit, double,   "TimeStepLimit",       (UnitDim{1, 0, -1}), Persistence::Kept,    AllTypes, kCoreFields, "time-step limit at the end of the last step, after the neighbour limiter (the next segment's rungs come from it)") \
  X(dt_crit,  double,   "",                    (UnitDim{1, 0, -1}), Persistence::Scratch, AllTypes, kCoreFields, "time-step criterion at the end of the last step, before the limiter") \
  X(ti_begin, int64_t,  "",                    (UnitDim{0, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "tick of the start of the current step in the segment") \
  X(ti_end,   int64_t,  "",                    (UnitDim{0, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "tick of the end of the current step in the segment") \
  X(rung,     uint8_t,  "TimeBin",             (UnitDim{0, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "rung k of the current step: dt = segment / 2^k") \
  X(rung_wake, int32_t, "",                    (UnitDim{0, 0, 0}),  Persistence::Scratch, AllTypes, kCoreFields, "smallest rung the limiter asks of an inactive particle (wake-up)")
// clang-format on

}  // namespace mpsph
