// The GPU backend (CUDA builds): the particles live in DeviceParticles for the whole run; every
// stage is a CUDA driver calling the MPSPH_HD functions of its module; the host store is written
// only by sync_to_host() (snapshots, checkpoints). One host synchronisation per step: timestep()
// reduces the next dt and the conserved sums in one pass and copies them, with the SPH error
// word, in one transfer; conserved() then returns those sums until the state changes.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "cooling/cooling_gpu.hpp"
#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/end_force_kern.hpp"
#include "core/error.hpp"
#include "core/order_gpu.hpp"
#include "core/step_backend.hpp"
#include "gravity/gravity_gpu.hpp"
#include "sph/sph_gpu.hpp"
#include "timestep/integrator_gpu.hpp"

namespace mpsph {

namespace {

__global__ void end_force_kernel(ParticleView s, bool gravity) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) end_force_particle(s, i, gravity);
}

class GpuBackend final : public StepBackend {
 public:
  explicit GpuBackend(const StepContext& ctx) : c_(ctx) {
    if (ctx.cooling) cooling_ = std::make_unique<GpuCooling>(*ctx.cooling);
  }
  const char* name() const override { return "gpu"; }

  void predict(double dt) override {
    predict_step_gpu(d_.view(), dt, c_.box);
    changed();
  }
  void order() override {
    order_.sort(d_, c_.box, mixed_types_);
    changed();
  }
  void smoothing_lengths() override { sph_.smoothing_lengths(d_.view(), c_.box, c_.sph); }
  void density() override { sph_.density(d_.view(), c_.box, c_.sph); }
  void prepare_force() override { sph_.prepare_force(d_.view(), c_.eos, c_.sph); }
  void sph_forces() override { sph_.forces(d_.view(), c_.box, c_.sph); }
  void gravity() override {
    if (c_.grav.enabled) gravity_.compute(d_.view(), c_.grav, c_.G);
  }
  void end_force() override {
    const ParticleView v = d_.view();
    if (v.n == 0) return;
    end_force_kernel<<<cuda_blocks(v.n, 256), 256>>>(v, c_.grav.enabled);
    cuda_check_launch("end_force_kernel");
    changed();
  }
  void cool_and_correct(double dt) override {
    // As on the CPU: with cooling, the cooling stage integrates u (hydro du/dt included).
    correct_step_gpu(d_.view(), dt, c_.box, !cooling_);
    if (cooling_) cooling_->apply(d_.view(), dt);
    changed();
  }
  double timestep() override {
    reduce();
    return scalars_.dt;
  }
  double radiated_in_last_step() override {
    if (!cooling_) return 0.0;
    if (!have_scalars_) reduce();
    return scalars_.radiated;
  }
  Conserved conserved() override {
    if (!have_scalars_) reduce();
    return scalars_.conserved;
  }
  void sync_to_host() override {
    if (!host_stale_) return;
    d_.download(c_.store);
    host_stale_ = false;
  }
  void sync_from_host() override {
    d_.upload(c_.store);
    std::size_t kinds = 0;
    for (const std::size_t c : c_.store.count_by_type()) kinds += c > 0;
    mixed_types_ = kinds > 1;
    host_stale_ = false;
    have_scalars_ = false;
  }

 private:
  void changed() {
    host_stale_ = true;
    have_scalars_ = false;
  }
  void reduce() {
    scalars_ = reduction_.run(d_.view(), c_.tstep, c_.grav, c_.grav.enabled,
                              sph_.device_error_flags(),
                              cooling_ ? cooling_->device_radiated() : nullptr);
    have_scalars_ = true;
    if (scalars_.error_flags) {
      sph_.clear_errors();
      throw Error(describe_gpu_sph_errors(scalars_.error_flags, c_.sph.n_neighbours));
    }
  }

  StepContext c_;
  DeviceParticles d_;
  DeviceOrder order_;
  GpuSph sph_;
  GpuGravity gravity_;
  GpuStepReduction reduction_;
  std::unique_ptr<GpuCooling> cooling_;  // null without cooling
  StepScalars scalars_;
  bool have_scalars_ = false;
  bool host_stale_ = false;
  bool mixed_types_ = true;
};

}  // namespace

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext& ctx) {
  return std::make_unique<GpuBackend>(ctx);
}

}  // namespace mpsph
