// Direct summation on the GPU (the CUDA driver of direct_gravity.cpp), and its double-precision
// reference.
//
// Pair kernel: each thread holds four i-particles in registers, each block of 128 threads stages
// 128 j-particles at a time in shared memory as float4 (x, y, z, m) and every thread reads them by
// broadcast. Coordinates are made relative to the centre of mass in double and then rounded to
// float (DESIGN.md section 4): the dense centre of a bound system sits near the origin of the float
// coordinates, where they are finest. Pair terms are summed in float over 512 j and then added
// into double accumulators, which keeps the sum's rounding near 1e-6 relative at any N.
// With uniform Plummer softening the pair term is plummer_factors() on r^2 + eps^2 evaluated as an
// FMA chain (eps^2 first) with one rsqrt: 14 instructions per interaction; the self pair adds
// -m_i/eps to the potential and nothing to the acceleration, and is subtracted at the end. Mixed
// softenings, zero softening or the spline kernel take the general path (per-j eps, explicit
// self-exclusion, softened_factors()).
// j-splitting: grid.y divides the j-range so that small N still yields enough blocks; the partial
// sums go to a scratch array and one more kernel adds them in split order (deterministic).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "gravity/device_buffer.cuh"
#include "gravity/gravity_gpu.hpp"
#include "gravity/gravity_kern.hpp"

namespace mpsph {

namespace {

using gpu::DeviceBuffer;

// The kernel's shape: threads per block (= j per shared tile), i-particles per thread and the
// minimum resident blocks per multiprocessor of __launch_bounds__. Compile definitions from the
// CMake cache (MPSPH_DIRECT_THREADS, MPSPH_DIRECT_PER_THREAD, MPSPH_DIRECT_MIN_BLOCKS) let
// bench_gravity_gpu compare shapes without editing the file; the defaults are the measured best
// (docs/PERFORMANCE.md).
#ifndef MPSPH_DIRECT_THREADS
#define MPSPH_DIRECT_THREADS 128
#endif
#ifndef MPSPH_DIRECT_PER_THREAD
#define MPSPH_DIRECT_PER_THREAD 4
#endif
#ifndef MPSPH_DIRECT_MIN_BLOCKS
#define MPSPH_DIRECT_MIN_BLOCKS 4
#endif
constexpr int kThreads = MPSPH_DIRECT_THREADS;
constexpr int kPerThread = MPSPH_DIRECT_PER_THREAD;
constexpr int kMinBlocks = MPSPH_DIRECT_MIN_BLOCKS;
constexpr int kIBlock = kThreads * kPerThread;
constexpr int kTilesPerFlush = 512 / kThreads;  // float partial sums span 512 j, then double
constexpr float kFar = 1e18f;                   // position of padding j-particles (zero mass)

struct TypeSoftening {
  float eps[6];
};

// Acceleration and potential of one target (a partial or a reference sum).
struct alignas(32) Sum4 {
  double x, y, z, w;
};

struct DirectArgs {
  const float4* xm;  // (x - c, y - c, z - c, m), n_pad entries (padding: far, zero mass)
  const float* e2;   // eps^2 per particle (general path)
  int n, n_pad, j_per_split, splits;
  float eps2;  // uniform path: eps^2 of every pair
  double G;
  Sum4* partial;  // [split][n] when splits > 1
  Vec3d* acc;     // view.acc_grav
  double* pot;    // view.pot
  // Active set of individual time steps: only particles with ti_end == tick are written; null:
  // every particle.
  const int64_t* ti_end;
  int64_t tick;
};

// Writes the final result of particle i: G applied, and (uniform path) the self pair removed.
template <bool kUniform>
__device__ __forceinline__ void finish(const DirectArgs& a, int i, double ax, double ay, double az,
                                       double pt) {
  if (a.ti_end && a.ti_end[i] != a.tick) return;
  if (kUniform) pt += double(a.xm[i].w) * double(plummer_factors(a.eps2, -0.0f).g);
  a.acc[i] = {a.G * ax, a.G * ay, a.G * az};
  a.pot[i] = a.G * pt;
}

template <bool kUniform, SofteningKernel K>
__global__ void __launch_bounds__(kThreads, kMinBlocks) direct_kernel(DirectArgs a) {
  __shared__ float4 sj[kThreads];
  __shared__ float se[kThreads];
  const int i0 = blockIdx.x * kIBlock + threadIdx.x;
  const int split = blockIdx.y;
  const int jb = split * a.j_per_split;
  const int je = min(a.n_pad, jb + a.j_per_split);

  float xi[kPerThread], yi[kPerThread], zi[kPerThread], ei2[kPerThread];
  double ax[kPerThread], ay[kPerThread], az[kPerThread], ap[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int i = i0 + u * kThreads;
    const float4 x = i < a.n ? a.xm[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    xi[u] = x.x, yi[u] = x.y, zi[u] = x.z;
    ei2[u] = (!kUniform && i < a.n) ? a.e2[i] : 0.0f;
    ax[u] = ay[u] = az[u] = ap[u] = 0.0;
  }

  for (int tb = jb; tb < je; tb += kThreads * kTilesPerFlush) {
    float fx[kPerThread], fy[kPerThread], fz[kPerThread], fp[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) fx[u] = fy[u] = fz[u] = fp[u] = 0.0f;
    const int te = min(je, tb + kThreads * kTilesPerFlush);
    for (int tile = tb; tile < te; tile += kThreads) {
      __syncthreads();
      sj[threadIdx.x] = a.xm[tile + threadIdx.x];
      if (!kUniform) se[threadIdx.x] = a.e2[tile + threadIdx.x];
      __syncthreads();
#pragma unroll 4
      for (int k = 0; k < kThreads; ++k) {
        const float4 s = sj[k];
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
          const float dx = xi[u] - s.x, dy = yi[u] - s.y, dz = zi[u] - s.z;
          if (kUniform) {
            // r^2 + eps^2 as three FMAs starting from eps^2; plummer_factors() then adds -0 (exact,
            // folded away) and takes one rsqrt.
            const float s2 = dx * dx + (dy * dy + (dz * dz + a.eps2));
            const GravFactors<float> f = plummer_factors(s2, -0.0f);
            const float mg1 = s.w * f.g1;
            fx[u] -= mg1 * dx;
            fy[u] -= mg1 * dy;
            fz[u] -= mg1 * dz;
            fp[u] -= s.w * f.g;
          } else {
            // General path: the pair of a particle with itself is skipped as in tree_gravity.cpp.
            const bool self = tile + k == i0 + u * kThreads;
            const float sx = self ? 1.0f : dx;
            const float m = self ? 0.0f : s.w;
            const GravFactors<float> f =
                softened_factors<K>(sx * sx + dy * dy + dz * dz, 0.5f * (ei2[u] + se[k]));
            fx[u] -= m * f.g1 * sx;
            fy[u] -= m * f.g1 * dy;
            fz[u] -= m * f.g1 * dz;
            fp[u] -= m * f.g;
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      ax[u] += double(fx[u]), ay[u] += double(fy[u]), az[u] += double(fz[u]);
      ap[u] += double(fp[u]);
    }
  }

#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int i = i0 + u * kThreads;
    if (i >= a.n) continue;
    if (a.splits == 1) {
      finish<kUniform>(a, i, ax[u], ay[u], az[u], ap[u]);
    } else {
      a.partial[std::size_t(split) * a.n + i] = Sum4{ax[u], ay[u], az[u], ap[u]};
    }
  }
}

// Sums the partial results of the j-ranges in split order.
template <bool kUniform>
__global__ void reduce_splits_kernel(DirectArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  double ax = 0.0, ay = 0.0, az = 0.0, pt = 0.0;
  for (int s = 0; s < a.splits; ++s) {
    const Sum4 p = a.partial[std::size_t(s) * a.n + i];
    ax += p.x, ay += p.y, az += p.z, pt += p.w;
  }
  finish<kUniform>(a, i, ax, ay, az, pt);
}

// Centre of mass in a fixed reduction order (fixed grid, then one block), so that the float
// coordinates, and with them the results, are the same on every call.
constexpr int kComBlocks = 512;

struct MassMoment {
  double mx, my, mz, m;
};

__device__ MassMoment block_sum(MassMoment v) {
  __shared__ MassMoment sh[kThreads];
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (int(threadIdx.x) < s) {
      sh[threadIdx.x].mx += sh[threadIdx.x + s].mx, sh[threadIdx.x].my += sh[threadIdx.x + s].my;
      sh[threadIdx.x].mz += sh[threadIdx.x + s].mz, sh[threadIdx.x].m += sh[threadIdx.x + s].m;
    }
    __syncthreads();
  }
  return sh[0];
}

__global__ void com_partial_kernel(ParticleView v, MassMoment* __restrict__ partial) {
  MassMoment s{0.0, 0.0, 0.0, 0.0};
  for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < v.n;
       i += std::size_t(gridDim.x) * kThreads) {
    const double m = v.mass[i];
    s.mx += m * v.pos[i].x, s.my += m * v.pos[i].y, s.mz += m * v.pos[i].z, s.m += m;
  }
  s = block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void com_final_kernel(const MassMoment* __restrict__ partial, int n_partial,
                                 Vec3d* __restrict__ com) {
  MassMoment s{0.0, 0.0, 0.0, 0.0};
  for (int i = threadIdx.x; i < n_partial; i += kThreads) {
    s.mx += partial[i].mx, s.my += partial[i].my, s.mz += partial[i].mz, s.m += partial[i].m;
  }
  s = block_sum(s);
  if (threadIdx.x == 0)
    *com = s.m > 0.0 ? Vec3d{s.mx / s.m, s.my / s.m, s.mz / s.m} : Vec3d{0, 0, 0};
}

// float4 (position relative to the centre of mass, mass) and eps^2 of each particle; padding after
// n.
__global__ void prepare_kernel(ParticleView v, int n, int n_pad, const Vec3d* __restrict__ com,
                               TypeSoftening soft, float4* __restrict__ xm,
                               float* __restrict__ e2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_pad) return;
  if (i >= n) {
    xm[i] = make_float4(kFar, kFar, kFar, 0.0f);
    e2[i] = 0.0f;
    return;
  }
  const Vec3f d = vec_cast<float>(v.pos[i] - *com);
  xm[i] = make_float4(d.x, d.y, d.z, float(v.mass[i]));
  const unsigned t = v.type[i];
  const float e = t < 6 ? soft.eps[t] : 0.0f;
  e2[i] = e * e;
}

__global__ void type_mask_kernel(const uint8_t* __restrict__ type, std::size_t n,
                                 unsigned* __restrict__ mask) {
  unsigned m = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    m |= 1u << (type[i] < 6 ? type[i] : 6);
  }
  m = __reduce_or_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0 && m) atomicOr(mask, m);
}

template <SofteningKernel K>
__global__ void direct_double_kernel(ParticleView v, TypeSoftening soft, std::size_t first,
                                     std::size_t last, double G, Sum4* __restrict__ out) {
  __shared__ Vec3d sx[kThreads];
  __shared__ double sm[kThreads], se[kThreads];
  const std::size_t i = first + blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  const bool active = i < last;
  const Vec3d xi = active ? v.pos[i] : Vec3d{0, 0, 0};
  // The softening enters as the float value per type, as in direct_gravity_double().
  const double ei = active && v.type[i] < 6 ? double(soft.eps[v.type[i]]) : 0.0;
  const double ei2 = ei * ei;
  double ax = 0.0, ay = 0.0, az = 0.0, pt = 0.0;
  for (std::size_t tile = 0; tile < v.n; tile += kThreads) {
    __syncthreads();
    const std::size_t j = tile + threadIdx.x;
    if (j < v.n) {
      sx[threadIdx.x] = v.pos[j];
      sm[threadIdx.x] = v.mass[j];
      se[threadIdx.x] = v.type[j] < 6 ? double(soft.eps[v.type[j]]) : 0.0;
    }
    __syncthreads();
    const int kn = int(std::min<std::size_t>(kThreads, v.n - tile));
    for (int k = 0; k < kn; ++k) {
      if (tile + k == i) continue;
      const Vec3d d = xi - sx[k];
      const GravFactors<double> f = softened_factors<K>(norm2(d), 0.5 * (ei2 + se[k] * se[k]));
      ax -= sm[k] * f.g1 * d.x;
      ay -= sm[k] * f.g1 * d.y;
      az -= sm[k] * f.g1 * d.z;
      pt -= sm[k] * f.g;
    }
  }
  if (active) out[i - first] = Sum4{G * ax, G * ay, G * az, G * pt};
}

TypeSoftening type_softening(const GravityParams& p) {
  TypeSoftening s;
  for (int t = 0; t < 6; ++t) s.eps[t] = float(p.softening[t]);
  return s;
}

double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  cuda_check(cudaEventElapsedTime(&ms, a, b), "reading a timing event");
  return double(ms);
}

template <bool kUniform, SofteningKernel K>
void launch_direct(const DirectArgs& a, int i_blocks) {
  direct_kernel<kUniform, K><<<dim3(i_blocks, a.splits), kThreads>>>(a);
  cuda_check_launch("direct gravity");
  if (a.splits > 1) {
    reduce_splits_kernel<kUniform><<<(a.n + 255) / 256, 256>>>(a);
    cuda_check_launch("direct gravity (split reduction)");
  }
}

// Blocks of the pair kernel that fit on the GPU at once.
int resident_direct_blocks(bool uniform, SofteningKernel kernel) {
  int dev = 0, sms = 0, per_sm = 0;
  cuda_check(cudaGetDevice(&dev), "querying the device");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "querying SMs");
  const void* f =
      uniform ? reinterpret_cast<const void*>(direct_kernel<true, SofteningKernel::Plummer>)
      : kernel == SofteningKernel::Spline
          ? reinterpret_cast<const void*>(direct_kernel<false, SofteningKernel::Spline>)
          : reinterpret_cast<const void*>(direct_kernel<false, SofteningKernel::Plummer>);
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, kThreads, 0),
             "querying the direct-sum occupancy");
  return sms * std::max(per_sm, 1);
}

}  // namespace

struct GpuDirectGravity::Impl {
  DeviceBuffer<Vec3d> com;
  DeviceBuffer<MassMoment> com_partial;
  DeviceBuffer<float4> xm;
  DeviceBuffer<float> e2;
  DeviceBuffer<Sum4> partial;
  DeviceBuffer<unsigned> mask;
  cudaEvent_t ev[2] = {};
  int splits = 1;
  bool timed = false;

  Impl() {
    for (cudaEvent_t& e : ev) cuda_check(cudaEventCreate(&e), "creating a timing event");
  }
  ~Impl() {
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }
};

GpuDirectGravity::GpuDirectGravity() : impl_(std::make_unique<Impl>()) {}
GpuDirectGravity::~GpuDirectGravity() = default;

void GpuDirectGravity::compute(const ParticleView& v, const GravityParams& p, double G,
                               bool j_split, const ActiveSet& active) {
  Impl& m = *impl_;
  m.timed = false;
  if (v.n == 0) return;
  if (v.n >= std::size_t(1) << 30) {
    throw Error("GPU direct gravity: " + std::to_string(v.n) + " particles exceed 2^30");
  }
  const int n = int(v.n);
  const int n_pad = (n + kThreads - 1) / kThreads * kThreads;
  m.com.reserve(1, "centre of mass");
  m.com_partial.reserve(kComBlocks, "centre-of-mass partial sums");
  m.xm.reserve(std::size_t(n_pad), "direct-sum positions");
  m.e2.reserve(std::size_t(n_pad), "direct-sum softenings");
  m.mask.reserve(1, "type mask");

  // The uniform path needs one Plummer softening > 0 shared by every type present.
  cuda_check(cudaMemset(m.mask.get(), 0, sizeof(unsigned)), "clearing the type mask");
  type_mask_kernel<<<std::min(1024, (n + 255) / 256), 256>>>(v.type, v.n, m.mask.get());
  cuda_check_launch("type mask");
  unsigned mask = 0;
  cuda_check(cudaMemcpy(&mask, m.mask.get(), sizeof(unsigned), cudaMemcpyDeviceToHost),
             "reading the type mask");
  double eps_common = -1.0;
  bool uniform = p.kernel == SofteningKernel::Plummer && !(mask & (1u << 6));
  for (int t = 0; t < 6 && uniform; ++t) {
    if (!(mask & (1u << t))) continue;
    if (eps_common < 0.0) eps_common = p.softening[t];
    uniform = p.softening[t] == eps_common && float(p.softening[t]) > 0.0f;
  }

  com_partial_kernel<<<kComBlocks, kThreads>>>(v, m.com_partial.get());
  cuda_check_launch("direct gravity (centre of mass)");
  com_final_kernel<<<1, kThreads>>>(m.com_partial.get(), kComBlocks, m.com.get());
  cuda_check_launch("direct gravity (centre of mass)");
  prepare_kernel<<<n_pad / kThreads, kThreads>>>(v, n, n_pad, m.com.get(), type_softening(p),
                                                 m.xm.get(), m.e2.get());
  cuda_check_launch("direct gravity (prepare)");

  const int i_blocks = (n + kIBlock - 1) / kIBlock;
  const int tiles = n_pad / kThreads;
  int splits = 1, j_per_split = n_pad;
  if (j_split) {
    // About two waves of blocks: fewer leave SMs idle, more cost partial-sum traffic.
    const int want = 2 * resident_direct_blocks(uniform, p.kernel);
    if (i_blocks < want) {
      splits = std::min(tiles, (want + i_blocks - 1) / i_blocks);
      j_per_split = (tiles + splits - 1) / splits * kThreads;
      splits = (n_pad + j_per_split - 1) / j_per_split;
    }
    if (splits > 1) m.partial.reserve(std::size_t(splits) * std::size_t(n), "j-split partials");
  }
  DirectArgs a;
  a.xm = m.xm.get();
  a.e2 = m.e2.get();
  a.n = n;
  a.n_pad = n_pad;
  a.j_per_split = j_per_split;
  a.splits = splits;
  const float eps = float(eps_common);
  a.eps2 = uniform ? eps * eps : 0.0f;
  a.G = G;
  a.partial = m.partial.get();
  a.acc = v.acc_grav;
  a.pot = v.pot;
  a.ti_end = active.all() ? nullptr : v.ti_end;
  a.tick = active.tick;
  m.splits = splits;

  cuda_check(cudaEventRecord(m.ev[0]), "recording an event");
  if (uniform) {
    launch_direct<true, SofteningKernel::Plummer>(a, i_blocks);
  } else if (p.kernel == SofteningKernel::Spline) {
    launch_direct<false, SofteningKernel::Spline>(a, i_blocks);
  } else {
    launch_direct<false, SofteningKernel::Plummer>(a, i_blocks);
  }
  cuda_check(cudaEventRecord(m.ev[1]), "recording an event");
  cuda_check(cudaEventSynchronize(m.ev[1]), "direct gravity");
  cuda_check(cudaGetLastError(), "direct gravity");
  m.timed = true;
}

std::size_t GpuDirectGravity::device_bytes() const {
  const Impl& m = *impl_;
  return m.com.bytes() + m.com_partial.bytes() + m.xm.bytes() + m.e2.bytes() + m.partial.bytes() +
         m.mask.bytes();
}

double GpuDirectGravity::last_kernel_ms() const {
  return impl_->timed ? elapsed_ms(impl_->ev[0], impl_->ev[1]) : 0.0;
}

int GpuDirectGravity::last_splits() const {
  return impl_->splits;
}

void direct_gravity_gpu(const ParticleView& device_view, const GravityParams& p, double G,
                        bool j_split) {
  GpuDirectGravity d;
  d.compute(device_view, p, G, j_split);
}

void direct_gravity_double_gpu(const ParticleView& v, const GravityParams& p, double G,
                               std::size_t first, std::size_t last, Vec3d* acc, double* pot) {
  last = std::min(last, v.n);
  if (first >= last) return;
  const std::size_t nt = last - first;
  DeviceBuffer<Sum4> out;
  out.reserve(nt, "double-precision reference");
  const int blocks = int((nt + kThreads - 1) / kThreads);
  if (p.kernel == SofteningKernel::Spline) {
    direct_double_kernel<SofteningKernel::Spline>
        <<<blocks, kThreads>>>(v, type_softening(p), first, last, G, out.get());
  } else {
    direct_double_kernel<SofteningKernel::Plummer>
        <<<blocks, kThreads>>>(v, type_softening(p), first, last, G, out.get());
  }
  cuda_check_launch("double-precision direct gravity");
  std::vector<Sum4> h(nt);
  cuda_check(cudaMemcpy(h.data(), out.get(), nt * sizeof(Sum4), cudaMemcpyDeviceToHost),
             "double-precision direct gravity");
  for (std::size_t k = 0; k < nt; ++k) {
    acc[k] = {h[k].x, h[k].y, h[k].z};
    pot[k] = h[k].w;
  }
}

}  // namespace mpsph
