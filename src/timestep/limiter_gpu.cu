// The limiter and the wake-up on the device: one warp per leaf of the SPH neighbour tree, one lane
// per active gas particle, over gpu::for_each_pair (neighbour_tree_gpu.cuh).
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "sph/neighbour_tree_gpu.cuh"
#include "sph/sph_gpu.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/limiter_gpu.hpp"

namespace mpsph {

namespace {

using gpu::kLeafSize;
using gpu::kWarpsPerBlock;

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    limiter_kernel(ParticleView v, Box box, gpu::TreeView t, ActiveSet a, int64_t now,
                   double length, double factor) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();
  if (leaf >= t.n_leaves) return;
  const std::size_t i = std::size_t(leaf) * kLeafSize + gpu::lane_id();
  const bool active = i < v.n_gas && a.contains(v.ti_end, i);
  if (!__any_sync(gpu::kFullMask, active)) return;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  const float h_i = active ? v.h[i] : 0.f;
  double dt = active ? v.dt_limit[i] : 0.0;
  gpu::for_each_pair(
      v, box, t, gpu::LeafLists{}, leaf, active, i, xi, h_i, stage[threadIdx.x >> 5],
      [&](std::size_t j, float) { dt = fmin(dt, factor * limiter_reference(v, j, now, length)); });
  if (active) v.dt_limit[i] = dt;
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    wake_request_kernel(ParticleView v, Box box, gpu::TreeView t, int64_t now, int d_shift) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();
  if (leaf >= t.n_leaves) return;
  const std::size_t i = std::size_t(leaf) * kLeafSize + gpu::lane_id();
  const int32_t want = i < v.n_gas ? int32_t(v.rung[i]) - d_shift : 0;
  // Only the active particles ask - their next steps start now (their ti_end moved on with their
  // new rungs) - and only from a rung above d_shift.
  const bool asks = i < v.n_gas && v.ti_begin[i] == now && want > 0;
  if (!__any_sync(gpu::kFullMask, asks)) return;
  const Vec3d xi = asks ? v.pos[i] : Vec3d{0, 0, 0};
  const float h_i = asks ? v.h[i] : 0.f;
  gpu::for_each_pair(v, box, t, gpu::LeafLists{}, leaf, asks, i, xi, h_i, stage[threadIdx.x >> 5],
                     [&](std::size_t j, float) {
                       if (v.ti_begin[j] != now && int32_t(v.rung[j]) < want)
                         atomicMax(&v.rung_wake[j], want);
                     });
}

}  // namespace

void limit_timesteps_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, double length, double factor) {
  if (!(factor > 0.0) || d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  const gpu::TreeView t = sph.tree_for_pairs(d, box);
  const unsigned threads = kWarpsPerBlock * 32;
  limiter_kernel<<<cuda_blocks(std::size_t(t.n_leaves) * kLeafSize, threads), threads>>>(
      d, box, t, a, now, length, factor);
  cuda_check_launch("limiter_kernel");
}

void wake_neighbours_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, int d_shift) {
  if (d_shift < 0 || d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  // Positions and h are those of the limiter's pass; its tree is rebuilt (a leaf-box pass, cheap
  // next to the pair pass) rather than handed over.
  const gpu::TreeView t = sph.tree_for_pairs(d, box);
  const unsigned threads = kWarpsPerBlock * 32;
  wake_request_kernel<<<cuda_blocks(std::size_t(t.n_leaves) * kLeafSize, threads), threads>>>(
      d, box, t, now, d_shift);
  cuda_check_launch("wake_request_kernel");
  apply_wakeups_gpu(d, now);
}

}  // namespace mpsph
