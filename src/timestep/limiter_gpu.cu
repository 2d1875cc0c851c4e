// The limiter and the wake-up on the device: one warp per 32 active gas particles (gpu::lane_task),
// one lane per particle, over gpu::for_each_pair (neighbour_tree_gpu.cuh).
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

// Whether the lane's particle (slot task.k of the active list) needs a walk: no pair lists, or
// its list overflowed.
__device__ __forceinline__ bool walks(const GpuPairLists& pl, const gpu::LaneTask& task) {
  if (!pl.j) return true;
  return pl.count[task.k] > pl.cap;  // only called for lanes with a particle (k < a.n_gas)
}

// The same rules over the recorded pair lists: one thread per active gas particle.
__global__ void limiter_list_kernel(ParticleView v, ActiveSet a, GpuPairLists pl, int64_t now,
                                    double length, double factor) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= a.n_gas) return;
  const int32_t c = pl.count[k];
  if (c > pl.cap) return;  // the walk kernel serves it
  const std::size_t i = a.index[k];
  const uint32_t* js = pl.j + k * std::size_t(pl.cap);
  double dt = v.dt_limit[i];
  for (int32_t p = 0; p < c; ++p) dt = fmin(dt, factor * limiter_reference(v, js[p], now, length));
  v.dt_limit[i] = dt;
}

__global__ void wake_list_kernel(ParticleView v, ActiveSet a, GpuPairLists pl, int64_t now,
                                 int d_shift) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= a.n_gas) return;
  const int32_t c = pl.count[k];
  if (c > pl.cap) return;  // the walk kernel serves it
  const std::size_t i = a.index[k];
  const int32_t want = int32_t(v.rung[i]) - d_shift;
  if (v.ti_begin[i] != now || want <= 0) return;
  const uint32_t* js = pl.j + k * std::size_t(pl.cap);
  for (int32_t p = 0; p < c; ++p) {
    const uint32_t j = js[p];
    if (needs_wake(v, a, j, now, want)) atomicMax(&v.rung_wake[j], want);
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    limiter_kernel(ParticleView v, Box box, gpu::TreeView t, ActiveSet a, GpuPairLists pl,
                   int64_t now, double length, double factor) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();  // the warp's task: active particles (lane_task)
  if (leaf >= gpu::task_warps(v.n_gas, a)) return;
  const gpu::LaneTask task = gpu::lane_task(v, a, leaf);
  const std::size_t i = task.i;
  const bool active = task.active && walks(pl, task);
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
    wake_request_kernel(ParticleView v, Box box, gpu::TreeView t, ActiveSet a, GpuPairLists pl,
                        int64_t now, int d_shift) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();  // the warp's task: active particles (lane_task)
  if (leaf >= gpu::task_warps(v.n_gas, a)) return;
  const gpu::LaneTask task = gpu::lane_task(v, a, leaf);
  const std::size_t i = task.i;
  const int32_t want = task.active ? int32_t(v.rung[i]) - d_shift : 0;
  // Only the active particles ask - their next steps start now (their ti_end moved on with their
  // new rungs, so the list, not ti_end, names them) - and only from a rung above d_shift.
  const bool asks = task.active && walks(pl, task) && v.ti_begin[i] == now && want > 0;
  if (!__any_sync(gpu::kFullMask, asks)) return;
  const Vec3d xi = asks ? v.pos[i] : Vec3d{0, 0, 0};
  const float h_i = asks ? v.h[i] : 0.f;
  gpu::for_each_pair(v, box, t, gpu::LeafLists{}, leaf, asks, i, xi, h_i, stage[threadIdx.x >> 5],
                     [&](std::size_t j, float) {
                       if (needs_wake(v, a, j, now, want)) atomicMax(&v.rung_wake[j], want);
                     });
}

}  // namespace

void limit_timesteps_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, double length, double factor) {
  if (!(factor > 0.0) || d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  const GpuPairLists pl = sph.pair_lists(a);
  if (pl.j) {
    limiter_list_kernel<<<cuda_blocks(a.n_gas, 128), 128>>>(d, a, pl, now, length, factor);
    cuda_check_launch("limiter_list_kernel");
  }
  // A walk over the tree at the current positions for the particles without a (complete) list.
  const gpu::TreeView t = sph.tree_for_pairs(d, box);
  const unsigned threads = kWarpsPerBlock * 32;
  limiter_kernel<<<cuda_blocks(std::size_t(gpu::task_warps(d.n_gas, a)) * kLeafSize, threads),
                   threads>>>(d, box, t, a, pl, now, length, factor);
  cuda_check_launch("limiter_kernel");
}

void wake_neighbours_gpu(GpuSph& sph, const ParticleView& d, const Box& box, const ActiveSet& a,
                         int64_t now, int d_shift) {
  if (d_shift < 0 || d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  const GpuPairLists pl = sph.pair_lists(a);
  if (pl.j) {
    wake_list_kernel<<<cuda_blocks(a.n_gas, 128), 128>>>(d, a, pl, now, d_shift);
    cuda_check_launch("wake_list_kernel");
  }
  // Positions and h are those of the limiter's pass; its tree is rebuilt (a leaf-box pass, cheap
  // next to the pair pass) rather than handed over.
  const gpu::TreeView t = sph.tree_for_pairs(d, box);
  const unsigned threads = kWarpsPerBlock * 32;
  wake_request_kernel<<<cuda_blocks(std::size_t(gpu::task_warps(d.n_gas, a)) * kLeafSize, threads),
                        threads>>>(d, box, t, a, pl, now, d_shift);
  cuda_check_launch("wake_request_kernel");
  apply_wakeups_gpu(d, now);
}

}  // namespace mpsph
