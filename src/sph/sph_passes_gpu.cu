// The GPU SphPasses (sph_passes.hpp): GpuSph on a device copy of the host store's gas. Each pass
// uploads the gas fields it reads, [0, n_gas) only, and downloads those it writes; the active
// list goes to the device as an ActiveSet. With a subset of the gas active (block steps) a pass
// also uploads the fields it writes, so that the download gives the inactive particles their own
// values back (the device copy holds another store's values from the last pass).
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/active_set.hpp"
#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "gravity/device_buffer.cuh"
#include "sph/sph_gpu.hpp"
#include "sph/sph_passes.hpp"

namespace mpsph {

namespace {

// Copies of one field (device array, host vector) of the first n particles, each way.
auto upload(std::size_t n) {
  return [n](auto* device, const auto& host) { copy_to_device(device, host, n); };
}
auto download(std::size_t n) {
  return [n](const auto* device, auto& host) { copy_to_host(host, device, n); };
}

class GpuSphPasses final : public SphPasses {
 public:
  const char* name() const override { return "gpu"; }
  bool sums_in_store_order() const override { return false; }

  void smoothing_lengths(ParticleStore& s, const Box& box, const SphParams& p,
                         const std::vector<uint32_t>& active, std::vector<double>& next) override {
    const std::size_t n = begin_pass(s, active);
    const ParticleView v = d_.view();
    copy_to_device(v.pos, s.pos, n);
    copy_to_device(v.h, s.h, n);
    if (subset_) upload(n)(v.nngb, s.nngb);
    next_.reserve(std::max<std::size_t>(n, 1), "d_{N+1} of the smoothing lengths");
    sph_.smoothing_lengths(v, box, p, set_, next_.get());
    sph_.throw_if_errors(p.n_neighbours);
    download(n)(v.h, s.h);
    download(n)(v.nngb, s.nngb);
    std::vector<double> d(n);
    copy_to_host(d, next_.get(), n);
    next.assign(n, 0.0);
    for (const uint32_t i : active) next[i] = d[i];
  }

  void density(ParticleStore& s, const Box& box, const SphParams& p, const EosParams& eos,
               const std::vector<uint32_t>& active) override {
    const std::size_t n = begin_pass(s, active);
    const ParticleView v = d_.view();
    copy_to_device(v.pos, s.pos, n);
    copy_to_device(v.vel, s.vel, n);
    copy_to_device(v.mass, s.mass, n);
    copy_to_device(v.h, s.h, n);
    copy_to_device(v.u, s.u, n);
    // What density and prepare_force write (u: a non-adiabatic EOS sets it).
    auto outputs = [&](auto&& f) {
      f(v.rho, s.rho), f(v.divv, s.divv), f(v.curlv, s.curlv), f(v.pressure, s.pressure);
      f(v.csound, s.csound), f(v.balsara, s.balsara), f(v.u, s.u);
    };
    if (subset_) outputs(upload(n));
    sph_.density(v, box, p, set_);
    sph_.prepare_force(v, eos, p, set_);
    sph_.throw_if_errors(p.n_neighbours);
    outputs(download(n));
  }

  // The pair structure, the particles and the active list of density(): same store.
  void forces(ParticleStore& s, const Box& box, const SphParams& p,
              const std::vector<uint32_t>&) override {
    const std::size_t n = s.n_gas();
    const ParticleView v = d_.view();
    copy_to_device(v.rho, s.rho, n);
    copy_to_device(v.pressure, s.pressure, n);
    copy_to_device(v.csound, s.csound, n);
    copy_to_device(v.balsara, s.balsara, n);
    auto outputs = [&](auto&& f) { f(v.acc, s.acc), f(v.dudt, s.dudt), f(v.vsig, s.vsig); };
    if (subset_) outputs(upload(n));
    sph_.forces(v, box, p, set_);
    sph_.throw_if_errors(p.n_neighbours);
    outputs(download(n));
  }

 private:
  // Sizes the device copy for the store's gas and uploads the active list; returns n_gas.
  std::size_t begin_pass(const ParticleStore& s, const std::vector<uint32_t>& active) {
    const std::size_t n = s.n_gas();
    if (n > capacity_) {
      capacity_ = n + n / 4;  // halos change size from pass to pass: grow with room
      d_.reserve(capacity_);
    }
    d_.set_counts(n, n);
    index_.reserve(std::max<std::size_t>(active.size(), 1), "active gas list");
    copy_to_device(index_.get(), active, active.size());
    set_ = ActiveSet{};
    set_.index = index_.get();
    set_.n = set_.n_gas = active.size();
    set_.lanes = gpu_task_lanes(n, active.size());
    subset_ = active.size() < n;
    return n;
  }

  DeviceParticles d_;
  GpuSph sph_;
  gpu::DeviceBuffer<uint32_t> index_;
  gpu::DeviceBuffer<double> next_;
  ActiveSet set_;
  bool subset_ = false;  // the last begin_pass's active list is a subset of the gas
  std::size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<SphPasses> make_gpu_sph_passes() {
  return std::make_unique<GpuSphPasses>();
}

}  // namespace mpsph
