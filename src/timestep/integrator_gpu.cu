// Predictor and corrector on the device.
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "timestep/block_step_kern.hpp"
#include "timestep/integrator_gpu.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;

__global__ void begin_segment_kernel(ParticleView s, double length, bool single_rung) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= s.n) return;
  begin_particle_step(s, i, 0, single_rung ? 0 : rung_for_dt(s.dt_limit[i], length));
}

__global__ void predict_kernel(ParticleView s, int64_t now, double tick_len, Box box,
                               EosParams eos) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) predict_particle(s, i, now, tick_len, box, eos);
}

__global__ void correct_kernel(ParticleView s, double tick_len, Box box, bool correct_u) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < s.n) correct_particle(s, i, tick_len, box, correct_u);
}

}  // namespace

void begin_segment_gpu(const ParticleView& d, double length, bool single_rung) {
  if (d.n == 0) return;
  begin_segment_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, length, single_rung);
  cuda_check_launch("begin_segment_kernel");
}

void predict_to_gpu(const ParticleView& d, int64_t now, double tick_len, const Box& box,
                    const EosParams& eos) {
  if (d.n == 0) return;
  predict_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, now, tick_len, box, eos);
  cuda_check_launch("predict_kernel");
}

void correct_all_gpu(const ParticleView& d, double tick_len, const Box& box, bool correct_u) {
  if (d.n == 0) return;
  correct_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, tick_len, box, correct_u);
  cuda_check_launch("correct_kernel");
}

}  // namespace mpsph
