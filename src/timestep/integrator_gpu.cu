// Predictor, corrector, and the time-step + conserved-quantity reduction on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

#include "core/cuda_check.hpp"
#include "core/diagnostics_kern.hpp"
#include "timestep/integrator_gpu.hpp"
#include "timestep/integrator_kern.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: the reduction order is reproducible

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

// dt (min) and the sums of measure_conserved (diagnostics.cpp), all in double; block_reduce treats
// the struct as an array of doubles, dt first.
struct Sums {
  double dt;
  ConservedSums c;
};
constexpr int kSumFields = sizeof(Sums) / sizeof(double);

struct Result {
  Sums s;
  double radiated;
  uint32_t flags;
};

__device__ void combine(Sums& a, const Sums& b) {
  a.dt = fmin(a.dt, b.dt);
  add_sums(a.c, b.c);
}

__device__ Sums zero_sums() {
  return Sums{DBL_MAX, zero_conserved_sums()};
}

// Tree reduction of one Sums per thread over the block, fixed order; thread 0 gets the total.
__device__ Sums block_reduce(Sums mine) {
  __shared__ double sh[kSumFields][kThreads];
  const double* m = reinterpret_cast<const double*>(&mine);
  for (int f = 0; f < kSumFields; ++f) sh[f][threadIdx.x] = m[f];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      sh[0][threadIdx.x] = fmin(sh[0][threadIdx.x], sh[0][threadIdx.x + stride]);
      for (int f = 1; f < kSumFields; ++f) sh[f][threadIdx.x] += sh[f][threadIdx.x + stride];
    }
    __syncthreads();
  }
  Sums out;
  double* o = reinterpret_cast<double*>(&out);
  for (int f = 0; f < kSumFields; ++f) o[f] = sh[f][0];
  return out;
}

__global__ void step_sums_kernel(ParticleView s, TimestepCriteria c, SofteningByType soft,
                                 bool with_potential, Sums* partial) {
  Sums acc = zero_sums();
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < s.n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    acc.dt = fmin(acc.dt, particle_timestep(timestep_input(s, i, soft), c));
    add_particle(acc.c, s, i, with_potential);
  }
  const Sums total = block_reduce(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void final_sums_kernel(const Sums* partial, unsigned n_partial, const uint32_t* flags,
                                  const double* radiated, Result* out) {
  Sums acc = zero_sums();
  for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) combine(acc, partial[b]);
  const Sums total = block_reduce(acc);
  if (threadIdx.x == 0) {
    out->s = total;
    out->flags = flags ? *flags : 0u;
    out->radiated = radiated ? *radiated : 0.0;
  }
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

GpuStepReduction::GpuStepReduction() {
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(Sums)), "allocation of step reduction");
  cuda_check(cudaMalloc(&result_, sizeof(Result)), "allocation of step reduction");
}

GpuStepReduction::~GpuStepReduction() {
  cudaFree(partial_);
  cudaFree(result_);
}

StepScalars GpuStepReduction::run(const ParticleView& d, const TimestepParams& tp,
                                  const GravityParams& gp, bool with_potential,
                                  const uint32_t* device_error_flags,
                                  const double* device_radiated) {
  const TimestepCriteria c = timestep_criteria(tp);
  const SofteningByType soft = softening_by_type(gp);
  const unsigned blocks = std::max(1u, std::min(kMaxBlocks, cuda_blocks(d.n, kThreads)));
  step_sums_kernel<<<blocks, kThreads>>>(d, c, soft, with_potential, static_cast<Sums*>(partial_));
  cuda_check_launch("step_sums_kernel");
  final_sums_kernel<<<1, kThreads>>>(static_cast<const Sums*>(partial_), blocks, device_error_flags,
                                     device_radiated, static_cast<Result*>(result_));
  cuda_check_launch("final_sums_kernel");
  Result r;
  cuda_check(cudaMemcpy(&r, result_, sizeof r, cudaMemcpyDeviceToHost),
             "the step's reduction (time step, energies; also reports faults of earlier kernels)");
  StepScalars out;
  out.dt = r.s.dt;
  if (tp.dt_max > 0.0) out.dt = std::min(out.dt, tp.dt_max);
  out.conserved.kinetic = r.s.c.kinetic;
  out.conserved.thermal = r.s.c.thermal;
  out.conserved.potential = r.s.c.potential;
  out.conserved.mass = r.s.c.mass;
  out.conserved.momentum = {r.s.c.px, r.s.c.py, r.s.c.pz};
  out.conserved.angular_momentum = {r.s.c.lx, r.s.c.ly, r.s.c.lz};
  out.error_flags = r.flags;
  out.radiated = r.radiated;
  return out;
}

}  // namespace mpsph
