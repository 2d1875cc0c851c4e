// Density pass on the GPU: rho, div v and |curl v| from density_kern.hpp over all pairs
// r_ij < h_i + h_j, found with the leaf tree (sph_gpu.hpp). One warp per 32 particles (a leaf, or
// 32 active ones: gpu::lane_task), one lane per i.
// Also the pair counts of the same search (a diagnostic for tests and benchmarks).
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "sph/density_kern.hpp"
#include "sph/neighbour_tree_gpu.cuh"

namespace mpsph {

using gpu::kLeafSize;

namespace {

using gpu::kWarpsPerBlock;

__global__ void __launch_bounds__(kWarpsPerBlock * 32, gpu::kPairMinBlocksPerSm)
    density_kernel(ParticleView v, Box box, gpu::TreeView t, gpu::LeafLists ll, ActiveSet a,
                   uint32_t* rec_pairs, int32_t* rec_count) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();  // the warp's task: a leaf or 32 active particles
  if (leaf >= gpu::task_warps(v.n_gas, a)) return;
  const gpu::LaneTask task = gpu::lane_task(v, a, leaf);
  const std::size_t i = task.i;
  const bool active = task.active;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  const float h_i = active ? v.h[i] : 0.f;
  DensitySums sums;
  if (active) density_self(sums, float(v.mass[i]), h_i);
  // The lane's slot in the pair lists: its index in the active list.
  const std::size_t k = task.k;
  uint32_t* rec = rec_pairs ? rec_pairs + k * std::size_t(kGpuPairListCapacity) : nullptr;
  int32_t n_pairs = 0;
  gpu::for_each_pair(v, box, t, ll, leaf, active, i, xi, h_i, stage[threadIdx.x >> 5],
                     [&](std::size_t j, float h_j) {
                       density_pair(sums, pair_separation(v, i, j, box), float(v.mass[j]), h_i,
                                    h_j);
                       if (rec && n_pairs < kGpuPairListCapacity) rec[n_pairs] = uint32_t(j);
                       ++n_pairs;
                     });
  if (rec && active) rec_count[k] = n_pairs;
  if (active) {
    const DensityResult r = density_end(sums);
    v.rho[i] = r.rho;
    v.divv[i] = r.divv;
    v.curlv[i] = r.curlv;
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    pair_count_kernel(ParticleView v, Box box, gpu::TreeView t, gpu::LeafLists ll, int32_t* count) {
  __shared__ gpu::LeafStage stage[kWarpsPerBlock];
  const int64_t leaf = gpu::global_warp();
  if (leaf >= t.n_leaves) return;
  const std::size_t i = std::size_t(leaf) * kLeafSize + gpu::lane_id();
  const bool active = i < v.n_gas;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  const float h_i = active ? v.h[i] : 0.f;
  int32_t c = 0;
  gpu::for_each_pair(v, box, t, ll, leaf, active, i, xi, h_i, stage[threadIdx.x >> 5],
                     [&](std::size_t, float) { ++c; });
  if (active) count[i] = c;
}

}  // namespace

void GpuSph::density(const ParticleView& d, const Box& box, const SphParams& /*p*/,
                     const ActiveSet& a) {
  if (d.n_gas == 0 || a.gas_count(d.n_gas) == 0) return;
  impl_->build(d, box, true);
  gpu::LeafLists ll;
  if (impl_->mode == GpuNeighbourMode::LeafLists) {
    impl_->reserve_lists(std::size_t(gpu::task_warps(d.n_gas, a)));
    ll.record = impl_->list;
    ll.record_count = impl_->list_count;
  }
  // Block substeps record their pair lists for the limiter and the wake-up (GpuPairLists).
  Impl& m = *impl_;
  m.pairs_valid = !a.all() && m.record_pairs;
  if (m.pairs_valid) {
    m.reserve_pairs(a.n_gas);
    m.pairs_for = a;
  }
  const unsigned threads = kWarpsPerBlock * 32;
  density_kernel<<<cuda_blocks(std::size_t(gpu::task_warps(d.n_gas, a)) * kLeafSize, threads),
                   threads>>>(d, box, impl_->view(), ll, a, m.pairs_valid ? m.pairs : nullptr,
                              m.pairs_valid ? m.pair_count : nullptr);
  cuda_check_launch("density_kernel");
  impl_->lists_valid = impl_->mode == GpuNeighbourMode::LeafLists;
}

void GpuSph::pair_counts(const ParticleView& d, const Box& box, int32_t* device_count) {
  if (d.n_gas == 0) return;
  if (impl_->n_leaves != int((d.n_gas + kLeafSize - 1) / kLeafSize))
    throw Error("GPU SPH: pair counts requested without the neighbour structure of this step (" +
                std::to_string(d.n_gas) + " gas particles; density() builds it)");
  const unsigned threads = kWarpsPerBlock * 32;
  pair_count_kernel<<<cuda_blocks(std::size_t(impl_->n_leaves) * kLeafSize, threads), threads>>>(
      d, box, impl_->view(), impl_->stored_lists(std::size_t(impl_->n_leaves)), device_count);
  cuda_check_launch("pair_count_kernel");
}

}  // namespace mpsph
