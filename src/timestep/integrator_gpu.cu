// Predictor and corrector on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

#include "core/cuda_check.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/integrator_kern.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;

__global__ void predict_kernel(ParticleView s, double dt, Box box) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= s.n) return;
  s.pos0[i] = s.pos[i];
  s.vel0[i] = s.vel[i];
  s.acc0[i] = s.acc[i];
  const KinematicState p = predict_kinematics(s.pos[i], s.vel[i], s.acc[i], dt);
  s.pos[i] = wrap_position(p.pos, box);
  s.vel[i] = p.vel;
  if (i < s.n_gas) {
    s.u0[i] = s.u[i];
    s.dudt0[i] = s.dudt[i];
    s.u[i] = predict_energy(s.u[i], s.dudt[i], dt);
  }
}

__global__ void correct_kernel(ParticleView s, double dt, Box box, bool correct_u) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= s.n) return;
  const KinematicState c = correct_kinematics(s.pos0[i], s.vel0[i], s.acc0[i], s.acc[i], dt);
  s.pos[i] = wrap_position(c.pos, box);
  s.vel[i] = c.vel;
  if (correct_u && i < s.n_gas) s.u[i] = correct_energy(s.u0[i], s.dudt0[i], s.dudt[i], dt);
}

}  // namespace

void predict_step_gpu(const ParticleView& d, double dt, const Box& box) {
  if (d.n == 0) return;
  predict_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, dt, box);
  cuda_check_launch("predict_kernel");
}

void correct_step_gpu(const ParticleView& d, double dt, const Box& box, bool correct_u) {
  if (d.n == 0) return;
  correct_kernel<<<cuda_blocks(d.n, kThreads), kThreads>>>(d, dt, box, correct_u);
  cuda_check_launch("correct_kernel");
}

}  // namespace mpsph
