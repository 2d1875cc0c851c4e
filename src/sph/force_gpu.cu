// Force passes on the GPU: prepare_force (EOS, Balsara switch; per particle) and the SPH
// accelerations, heating and signal velocities from force_kern.hpp over all pairs
// r_ij < h_i + h_j, with the neighbour structure that density() built this step.
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "sph/eos_kern.hpp"
#include "sph/force_kern.hpp"
#include "sph/neighbour_tree_gpu.cuh"

namespace mpsph {

using gpu::kLeafSize;

namespace {

using gpu::kWarpsPerBlock;

__global__ void prepare_force_kernel(ParticleView v, EosParams eos, bool balsara, float eps_prime,
                                     ActiveSet a, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const std::size_t i = a[k];
  const EosState e = apply_eos(eos, v, i);
  v.balsara[i] = balsara ? balsara_factor(v.divv[i], v.curlv[i], e.csound, v.h[i], eps_prime) : 1.f;
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32, gpu::kPairMinBlocksPerSm)
    force_kernel(ParticleView v, Box box, gpu::TreeView t, gpu::LeafLists ll, PairForceParams vp,
                 ActiveSet a) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();  // the warp's task: a leaf or 32 active particles
  if (leaf >= gpu::task_warps(v.n_gas, a)) return;
  const gpu::LaneTask task = gpu::lane_task(v, a, leaf);
  const std::size_t i = task.i;
  const bool active = task.active;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  const ForceParticle pi = active ? force_particle(v, i) : ForceParticle{0.f, 1.f, 0.f, 0.f, 0.f};
  ForceSums sums;
  gpu::for_each_pair(
      v, box, t, ll, leaf, active, i, xi, pi.h, stage[threadIdx.x >> 5], [&](std::size_t j, float) {
        force_accumulate(sums,
                         force_pair(pair_separation(v, i, j, box), pi, force_particle(v, j), vp),
                         v.mass[j]);
      });
  if (active) {
    v.acc[i] = sums.acc;
    v.dudt[i] = sums.dudt;
    v.vsig[i] = signal_velocity(pi.csound, sums.mu_max, vp);
  }
}

}  // namespace

void GpuSph::prepare_force(const ParticleView& d, const EosParams& eos, const SphParams& p,
                           const ActiveSet& a) {
  const std::size_t n = a.gas_count(d.n_gas);
  if (n == 0) return;
  const unsigned threads = 256;
  prepare_force_kernel<<<cuda_blocks(n, threads), threads>>>(d, eos, p.balsara,
                                                             float(p.balsara_eps), a, n);
  cuda_check_launch("prepare_force_kernel");
}

void GpuSph::forces(const ParticleView& d, const Box& box, const SphParams& p, const ActiveSet& a) {
  if (d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  if (impl_->n_leaves != int((d.n_gas + kLeafSize - 1) / kLeafSize))
    throw Error("GPU SPH: forces requested without the neighbour structure of this step for " +
                std::to_string(d.n_gas) + " gas particles (density() builds it)");
  const unsigned threads = kWarpsPerBlock * 32;
  const std::size_t tasks = std::size_t(gpu::task_warps(d.n_gas, a));
  force_kernel<<<cuda_blocks(tasks * kLeafSize, threads), threads>>>(
      d, box, impl_->view(), impl_->stored_lists(tasks), pair_force_params(p), a);
  cuda_check_launch("force_kernel");
}

}  // namespace mpsph
