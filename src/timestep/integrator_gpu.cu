// Predictor, corrector and block time-step bookkeeping on the device.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;

__global__ void begin_segment_kernel(ParticleView s, double length, bool single_rung,
                                     unsigned int* too_short) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= s.n) return;
  int rung = 0;
  if (!single_rung) {
    rung = rung_for_dt(s.dt_limit[i], length);
    if (ldexp(length, -rung) > s.dt_limit[i]) atomicOr(too_short, 1u);
  }
  begin_particle_step(s, i, 0, rung);
}

__global__ void predict_kernel(ParticleView s, int64_t now, double tick_len, Box box,
                               EosParams eos) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) predict_particle(s, i, now, tick_len, box, eos);
}

__global__ void correct_kernel(ParticleView s, ActiveSet a, std::size_t n, double tick_len, Box box,
                               bool correct_u) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) correct_particle(s, a[k], tick_len, box, correct_u);
}

__global__ void criteria_kernel(ParticleView s, ActiveSet a, std::size_t n, TimestepCriteria c,
                                SofteningByType soft) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const std::size_t i = a[k];
  s.dt_crit[i] = particle_timestep(timestep_input(s, i, soft), c);
  s.dt_limit[i] = s.dt_crit[i];
}

__global__ void new_rung_kernel(ParticleView s, ActiveSet a, std::size_t n, int64_t now,
                                double length, unsigned int* too_short) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n && !new_rung_particle(s, a[k], now, length)) atomicOr(too_short, 1u);
}

__global__ void wake_kernel(ParticleView s, int64_t now) {
  const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (j < s.n_gas && s.rung_wake[j] != 0) wake_particle(s, j, now);
}

__global__ void earliest_end_kernel(ParticleView s, BlockTimeline* w) {
  unsigned long long t = ~0ull;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < s.n;
       i += std::size_t(gridDim.x) * blockDim.x)
    t = min(t, (unsigned long long)s.ti_end[i]);
  for (int o = 16; o > 0; o >>= 1) t = min(t, __shfl_xor_sync(0xffffffffu, t, o));
  if ((threadIdx.x & 31) == 0 && t != ~0ull) atomicMin(&w->next_tick, t);
}

__global__ void count_next_kernel(ParticleView s, BlockTimeline* w) {
  const unsigned long long next = w->next_tick;
  unsigned long long n = 0, n_gas = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < s.n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if ((unsigned long long)s.ti_end[i] == next) {
      ++n;
      n_gas += i < s.n_gas;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    n += __shfl_xor_sync(0xffffffffu, n, o);
    n_gas += __shfl_xor_sync(0xffffffffu, n_gas, o);
  }
  if ((threadIdx.x & 31) == 0 && n) {
    atomicAdd(&w->n_next, n);
    if (n_gas) atomicAdd(&w->n_next_gas, n_gas);
  }
}

__global__ void reset_scan_kernel(BlockTimeline* w) {
  w->next_tick = ~0ull;
  w->n_next = 0;
  w->n_next_gas = 0;
}

// Active-set selection: a 0/1 flag per particle, an exclusive scan, then the scatter (keeps store
// order, so gas comes first).
__global__ void active_flag_kernel(ParticleView s, int64_t now, uint32_t* flag) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) flag[i] = s.ti_end[i] == now ? 1u : 0u;
}

__global__ void active_scatter_kernel(ParticleView s, int64_t now, const uint32_t* offset,
                                      uint32_t* index) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n && s.ti_end[i] == now) index[offset[i]] = uint32_t(i);
}

unsigned grid(std::size_t n) {
  return std::max(1u, std::min(1024u, cuda_blocks(n, kThreads)));
}

}  // namespace

GpuTimeline::GpuTimeline() {
  cuda_check(cudaMalloc(&words_, sizeof(BlockTimeline)), "allocation of the timeline words");
  cuda_check(cudaMemset(words_, 0, sizeof(BlockTimeline)), "timeline words");
}

GpuTimeline::~GpuTimeline() {
  cudaFree(words_);
  cudaFree(index_);
  cudaFree(temp_);
  cudaFree(offset_);
}

void GpuTimeline::clear_flags() {
  cuda_check(cudaMemsetAsync(&words_->too_short, 0, sizeof(unsigned int)), "timeline words");
}

void GpuTimeline::scan(const ParticleView& d) {
  reset_scan_kernel<<<1, 1>>>(words_);
  cuda_check_launch("reset_scan_kernel");
  if (d.n == 0) return;
  earliest_end_kernel<<<grid(d.n), kThreads>>>(d, words_);
  cuda_check_launch("earliest_end_kernel");
  count_next_kernel<<<grid(d.n), kThreads>>>(d, words_);
  cuda_check_launch("count_next_kernel");
}

ActiveSet GpuTimeline::select(const ParticleView& d, int64_t now, std::size_t n,
                              std::size_t n_gas) {
  if (d.n >= (std::size_t(1) << 32))
    throw Error("GPU active set: " + std::to_string(d.n) + " particles exceed 2^32");
  if (d.n > index_capacity_) {
    cudaFree(index_);
    cudaFree(offset_);
    index_ = offset_ = nullptr;
    index_capacity_ = 0;
    cuda_check(cudaMalloc(&index_, d.n * sizeof(uint32_t)), "allocation of the active set");
    cuda_check(cudaMalloc(&offset_, d.n * sizeof(uint32_t)), "allocation of the active set");
    index_capacity_ = d.n;
  }
  if (d.n > 0) {
    active_flag_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, now, offset_);
    cuda_check_launch("active_flag_kernel");
    std::size_t bytes = 0;
    cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, offset_, offset_, int(d.n)),
               "sizing the active-set scan");
    if (bytes > temp_bytes_) {
      cudaFree(temp_);
      temp_ = nullptr;
      temp_bytes_ = 0;
      cuda_check(cudaMalloc(&temp_, bytes), "allocation of the active-set scan");
      temp_bytes_ = bytes;
    }
    cuda_check(cub::DeviceScan::ExclusiveSum(temp_, bytes, offset_, offset_, int(d.n)),
               "active-set scan");
    active_scatter_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, now, offset_, index_);
    cuda_check_launch("active_scatter_kernel");
  }
  ActiveSet a;
  a.index = index_;
  a.n = n;
  a.n_gas = n_gas;
  a.tick = now;
  return a;
}

BlockTimeline GpuTimeline::read() const {
  BlockTimeline w;
  cuda_check(cudaMemcpy(&w, words_, sizeof w, cudaMemcpyDeviceToHost), "reading the timeline");
  return w;
}

void begin_segment_gpu(const ParticleView& d, double length, bool single_rung,
                       unsigned int* too_short) {
  if (d.n == 0) return;
  begin_segment_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, length, single_rung, too_short);
  cuda_check_launch("begin_segment_kernel");
}

void predict_to_gpu(const ParticleView& d, int64_t now, double tick_len, const Box& box,
                    const EosParams& eos) {
  if (d.n == 0) return;
  predict_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, now, tick_len, box, eos);
  cuda_check_launch("predict_kernel");
}

void correct_active_gpu(const ParticleView& d, const ActiveSet& a, double tick_len, const Box& box,
                        bool correct_u) {
  const std::size_t n = a.count(d.n);
  if (n == 0) return;
  correct_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d, a, n, tick_len, box, correct_u);
  cuda_check_launch("correct_kernel");
}

void timestep_criteria_gpu(const ParticleView& d, const ActiveSet& a, const TimestepParams& tp,
                           const GravityParams& gp, bool gas_sph) {
  const std::size_t n = a.count(d.n);
  if (n == 0) return;
  criteria_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d, a, n, timestep_criteria(tp),
                                                          softening_by_type(gp, gas_sph));
  cuda_check_launch("criteria_kernel");
}

void new_rungs_gpu(const ParticleView& d, const ActiveSet& a, int64_t now, double length,
                   unsigned int* too_short) {
  const std::size_t n = a.count(d.n);
  if (n == 0) return;
  new_rung_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d, a, n, now, length, too_short);
  cuda_check_launch("new_rung_kernel");
}

void apply_wakeups_gpu(const ParticleView& d, int64_t now) {
  if (d.n_gas == 0) return;
  wake_kernel<<<cuda_blocks(d.n_gas, kThreads), kThreads>>>(d, now);
  cuda_check_launch("wake_kernel");
}

}  // namespace mpsph
