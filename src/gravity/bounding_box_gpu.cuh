// Bounding cube of all positions on the device (two-stage min/max reduction, no host sync), with
// the cube rule of the CPU octree (Octree::compute_keys): lower corner = componentwise minimum,
// edge = longest extent * (1 + 1e-9) (1 when all positions coincide). min/max are exact in double,
// so the cube, and with it every Morton key, is bit-identical to the CPU's.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/vec3.hpp"
#include "gravity/device_buffer.cuh"

namespace mpsph::gpu {

struct BoundingCube {
  Vec3d lo;      // lower corner of the cube
  double size;   // edge of the cube
  Vec3d centre;  // centre of the bounding box (reference point for float coordinates)
};

constexpr int kBoxThreads = 256;
constexpr int kBoxBlocks = 512;  // partial boxes of the first stage

struct Box6 {
  double lo[3], hi[3];
};

namespace detail {

__device__ inline void box_merge(Box6& a, const Box6& b) {
  for (int d = 0; d < 3; ++d) {
    a.lo[d] = fmin(a.lo[d], b.lo[d]);
    a.hi[d] = fmax(a.hi[d], b.hi[d]);
  }
}

__device__ inline Box6 box_block_reduce(Box6 b) {
  __shared__ Box6 sh[kBoxThreads];
  sh[threadIdx.x] = b;
  __syncthreads();
  for (int s = kBoxThreads / 2; s > 0; s >>= 1) {
    if (int(threadIdx.x) < s) box_merge(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  return sh[0];
}

__device__ inline Box6 empty_box() {
  return {{DBL_MAX, DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX, -DBL_MAX}};
}

}  // namespace detail

static __global__ void __launch_bounds__(kBoxThreads)
    box_partial_kernel(const Vec3d* __restrict__ pos, std::size_t n, Box6* __restrict__ partial) {
  Box6 b = detail::empty_box();
  for (std::size_t i = blockIdx.x * std::size_t(kBoxThreads) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * kBoxThreads) {
    const Vec3d x = pos[i];
    b.lo[0] = fmin(b.lo[0], x.x), b.lo[1] = fmin(b.lo[1], x.y), b.lo[2] = fmin(b.lo[2], x.z);
    b.hi[0] = fmax(b.hi[0], x.x), b.hi[1] = fmax(b.hi[1], x.y), b.hi[2] = fmax(b.hi[2], x.z);
  }
  b = detail::box_block_reduce(b);
  if (threadIdx.x == 0) partial[blockIdx.x] = b;
}

static __global__ void __launch_bounds__(kBoxThreads)
    box_final_kernel(const Box6* __restrict__ partial, int n_partial, std::size_t n,
                     BoundingCube* __restrict__ out) {
  Box6 b = detail::empty_box();
  for (int i = threadIdx.x; i < n_partial; i += kBoxThreads) detail::box_merge(b, partial[i]);
  b = detail::box_block_reduce(b);
  if (threadIdx.x == 0) {
    BoundingCube c;
    if (n == 0) {
      c.lo = {0, 0, 0};
      c.size = 1.0;
      c.centre = {0, 0, 0};
    } else {
      const double extent = fmax(b.hi[0] - b.lo[0], fmax(b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]));
      c.lo = {b.lo[0], b.lo[1], b.lo[2]};
      c.size = extent > 0.0 ? extent * (1.0 + 1e-9) : 1.0;
      c.centre = {0.5 * (b.lo[0] + b.hi[0]), 0.5 * (b.lo[1] + b.hi[1]), 0.5 * (b.lo[2] + b.hi[2])};
    }
    *out = c;
  }
}

// Scratch for bounding_cube(): the partial boxes.
inline std::size_t bounding_cube_scratch_bytes() {
  return kBoxBlocks * sizeof(Box6);
}

// Writes the cube of pos[0..n) to *out (device memory); asynchronous on the default stream.
inline void bounding_cube(const Vec3d* pos, std::size_t n, BoundingCube* out, void* scratch) {
  Box6* partial = static_cast<Box6*>(scratch);
  const std::size_t want = (n + kBoxThreads - 1) / kBoxThreads;
  const int blocks = int(want < std::size_t(kBoxBlocks) ? (want > 0 ? want : 1) : kBoxBlocks);
  box_partial_kernel<<<blocks, kBoxThreads>>>(pos, n, partial);
  cuda_check_launch("bounding box (partial)");
  box_final_kernel<<<1, kBoxThreads>>>(partial, blocks, n, out);
  cuda_check_launch("bounding box (final)");
}

// The bounds [lo, hi] of positions [0, n) on the device (none: lo = +inf, hi = -inf), through
// the first stage into `partial` and the last on the host (a caller that needs the box, not the
// cube).
inline void position_bounds(const Vec3d* pos, std::size_t n, DeviceBuffer<Box6>& partial, Vec3d& lo,
                            Vec3d& hi) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  lo = {inf, inf, inf}, hi = {-inf, -inf, -inf};
  if (n == 0) return;
  const std::size_t blocks =
      std::min<std::size_t>(kBoxBlocks, (n + kBoxThreads - 1) / std::size_t(kBoxThreads));
  partial.reserve(blocks, "bounding boxes");
  box_partial_kernel<<<unsigned(blocks), kBoxThreads>>>(pos, n, partial.get());
  cuda_check_launch("box_partial_kernel");
  std::vector<Box6> out(blocks);
  copy_to_host(out, partial.get(), blocks);
  for (const Box6& b : out) {
    lo = {fmin(lo.x, b.lo[0]), fmin(lo.y, b.lo[1]), fmin(lo.z, b.lo[2])};
    hi = {fmax(hi.x, b.hi[0]), fmax(hi.y, b.hi[1]), fmax(hi.z, b.hi[2])};
  }
}

}  // namespace mpsph::gpu
