#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "run/diagnostics_kern.hpp"
#include "run/health_kern.hpp"
#include "run/step_reduction_gpu.hpp"
#include "timestep/block_timeline_kern.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: the reduction order is reproducible
// Types incl. removed, spawn requests by type, then the particles that follow one of a larger type.
constexpr int kDescents = (kNumTypes + 1) + kNumTypes;
constexpr int kCounts = kDescents + 1;

// dt (min) and the sums of measure_conserved (diagnostics.cpp), all in double; block_reduce treats
// the struct as an array of doubles, dt first.
struct Sums {
  double dt;
  ConservedSums c;
};
constexpr int kSumFields = sizeof(Sums) / sizeof(double);

struct EnergyPointers {
  const double* p[kMaxEnergyTerms];
  int n;
};

struct Result {
  Sums s;
  unsigned long long counts[kCounts];
  double energy[kMaxEnergyTerms];
  unsigned long long health_first;  // smallest index of a particle that fails the health check
  unsigned int health_bits;
  uint32_t flags;
  BlockTimeline timeline;
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

// Every thread of the block runs the same number of iterations (the loop bound is uniform), so the
// warp votes that count types see full warps.
__global__ void step_sums_kernel(ParticleView s, BlockStepInfo block, bool with_potential,
                                 Sums* partial, unsigned long long* counts,
                                 unsigned int* health_bits, unsigned long long* health_first) {
  __shared__ unsigned int block_counts[kCounts];
  __shared__ unsigned int block_bits;
  __shared__ unsigned long long block_first;
  if (threadIdx.x < kCounts) block_counts[threadIdx.x] = 0;
  if (threadIdx.x == 0) block_bits = 0, block_first = ~0ull;
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  Sums acc = zero_sums();
  for (std::size_t base = blockIdx.x * std::size_t(blockDim.x); base < s.n;
       base += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = base + threadIdx.x;
    const bool valid = i < s.n;
    int type = -1, spawn = -1;
    bool descent = false;
    if (valid) {
      // dt_limit: the criteria of the last limit_steps() (integrator_gpu.cu criteria_kernel)
      // and any module's time-step stage; under the block scheme of the particles starting now.
      if (!block.block || block.now == kAllActive || s.ti_begin[i] == block.now)
        acc.dt = fmin(acc.dt, s.dt_limit[i]);
      add_particle(acc.c, s, i, with_potential);
      type = s.type[i];
      descent = i > 0 && s.type[i] < s.type[i - 1];
      if (s.spawn_mass && s.spawn_mass[i] > 0.0) spawn = s.spawn_type[i];
      const uint32_t bad = particle_health(s, i);
      if (bad) {  // rare: the atomics cost nothing in a healthy run
        atomicOr(&block_bits, bad);
        atomicMin(&block_first, (unsigned long long)i);
      }
    }
    for (int t = 0; t <= kNumTypes; ++t) {
      const unsigned k = __popc(__ballot_sync(0xffffffffu, type == t));
      if (lane == 0 && k) atomicAdd(&block_counts[t], k);
    }
    {
      const unsigned k = __popc(__ballot_sync(0xffffffffu, descent));
      if (lane == 0 && k) atomicAdd(&block_counts[kDescents], k);
    }
    if (__any_sync(0xffffffffu, spawn >= 0)) {
      for (int t = 0; t < kNumTypes; ++t) {
        const unsigned k = __popc(__ballot_sync(0xffffffffu, spawn == t));
        if (lane == 0 && k) atomicAdd(&block_counts[kNumTypes + 1 + t], k);
      }
    }
  }
  const Sums total = block_reduce(acc);  // synchronises the block
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
  if (threadIdx.x < kCounts && block_counts[threadIdx.x])
    atomicAdd(&counts[threadIdx.x], (unsigned long long)block_counts[threadIdx.x]);
  if (threadIdx.x == 0 && block_bits) {
    atomicOr(health_bits, block_bits);
    atomicMin(health_first, block_first);
  }
}

__global__ void final_sums_kernel(const Sums* partial, unsigned n_partial, const uint32_t* flags,
                                  EnergyPointers energy, const BlockTimeline* timeline,
                                  Result* out) {
  Sums acc = zero_sums();
  for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) combine(acc, partial[b]);
  const Sums total = block_reduce(acc);
  if (threadIdx.x == 0) {
    out->s = total;
    out->flags = flags ? *flags : 0u;
    for (int k = 0; k < energy.n; ++k) out->energy[k] = *energy.p[k];
    if (timeline) out->timeline = *timeline;
  }
}

}  // namespace

GpuStepReduction::GpuStepReduction() {
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * sizeof(Sums)), "allocation of step reduction");
  cuda_check(cudaMalloc(&result_, sizeof(Result)), "allocation of step reduction");
}

GpuStepReduction::~GpuStepReduction() {
  cudaFree(partial_);
  cudaFree(result_);
}

StepScalars GpuStepReduction::run(const ParticleView& d, const TimestepParams& tp,
                                  bool with_potential, const uint32_t* device_error_flags,
                                  const std::vector<const double*>& device_energy_terms,
                                  const BlockStepInfo& block) {
  if (device_energy_terms.size() > std::size_t(kMaxEnergyTerms))
    throw Error("more than " + std::to_string(kMaxEnergyTerms) +
                " module energy terms: raise kMaxEnergyTerms in run/step_reduction_gpu.hpp");
  EnergyPointers energy{};
  energy.n = int(device_energy_terms.size());
  for (int k = 0; k < energy.n; ++k) energy.p[k] = device_energy_terms[std::size_t(k)];

  Result* result = static_cast<Result*>(result_);
  cuda_check(cudaMemsetAsync(result->counts, 0, sizeof result->counts), "step reduction");
  cuda_check(cudaMemsetAsync(&result->health_bits, 0, sizeof result->health_bits),
             "step reduction");
  cuda_check(cudaMemsetAsync(&result->health_first, 0xff, sizeof result->health_first),
             "step reduction");
  const unsigned blocks = std::max(1u, std::min(kMaxBlocks, cuda_blocks(d.n, kThreads)));
  step_sums_kernel<<<blocks, kThreads>>>(d, block, with_potential, static_cast<Sums*>(partial_),
                                         result->counts, &result->health_bits,
                                         &result->health_first);
  cuda_check_launch("step_sums_kernel");
  final_sums_kernel<<<1, kThreads>>>(static_cast<const Sums*>(partial_), blocks, device_error_flags,
                                     energy, block.block ? block.timeline : nullptr, result);
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
  for (int t = 0; t <= kNumTypes; ++t) out.type_counts[std::size_t(t)] = r.counts[t];
  for (int t = 0; t < kNumTypes; ++t)
    out.spawn_counts[std::size_t(t)] = r.counts[kNumTypes + 1 + t];
  out.type_descents = std::size_t(r.counts[kDescents]);
  out.energy.assign(r.energy, r.energy + energy.n);
  out.error_flags = r.flags;
  out.timeline = r.timeline;
  out.health.bits = r.health_bits;
  out.health.first = r.health_bits ? std::size_t(r.health_first) : SIZE_MAX;
  return out;
}

}  // namespace mpsph
