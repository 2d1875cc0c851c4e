// The step's stages behind one interface, implemented once per backend: the CPU backend runs the
// OpenMP drivers on the host store; the GPU backend keeps the particles on the device for the whole
// run and copies them to the host store only when asked (snapshots, checkpoints).
// The simulation driver calls these in the order of DESIGN.md section 2.
#pragma once

#include <memory>

#include "core/box.hpp"
#include "core/diagnostics.hpp"
#include "core/particle_store.hpp"
#include "gravity/gravity_params.hpp"
#include "sph/sph_params.hpp"
#include "timestep/timestep_params.hpp"

namespace mpsph {

class CoolingModel;

// What every stage may read; the referenced objects outlive the backend.
struct StepContext {
  ParticleStore& store;  // host particles (authoritative on the CPU backend)
  const Box& box;
  const SphParams& sph;
  const EosParams& eos;
  const GravityParams& grav;
  const TimestepParams& tstep;
  double G;                     // gravitational constant in code units
  const CoolingModel* cooling;  // nullptr = no cooling
};

class StepBackend {
 public:
  virtual ~StepBackend() = default;
  virtual const char* name() const = 0;

  virtual void predict(double dt) = 0;
  virtual void order() = 0;  // sort by (type, space-filling key); build trees
  virtual void smoothing_lengths() = 0;
  virtual void density() = 0;
  virtual void prepare_force() = 0;
  virtual void sph_forces() = 0;
  virtual void gravity() = 0;
  virtual void end_force() = 0;  // acc = hydro + gravity
  // Cooling (when a model is set) and the corrector.
  virtual void cool_and_correct(double dt) = 0;
  virtual double timestep() = 0;  // next global step from the criteria
  // Energy radiated in the last cool_and_correct() (the GPU backend collects it in timestep()'s
  // synchronisation); 0 without cooling.
  virtual double radiated_in_last_step() = 0;
  virtual Conserved conserved() = 0;

  // Host store <- backend (no-op on the CPU backend).
  virtual void sync_to_host() = 0;
  // Backend <- host store, after the host store changed (initial conditions, restart).
  virtual void sync_from_host() = 0;
};

std::unique_ptr<StepBackend> make_cpu_backend(const StepContext& ctx);
// Defined in CUDA builds; a CPU-only build throws mpsph::Error saying so.
std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx);

}  // namespace mpsph
