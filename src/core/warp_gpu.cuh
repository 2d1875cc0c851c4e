// Warp-level helpers shared by the CUDA kernels (CUDA builds only).
#pragma once

#include <cuda_runtime.h>

namespace mpsph::gpu {

// Every lane of a warp: the mask of the *_sync intrinsics when the whole warp takes part.
constexpr unsigned kFullMask = 0xffffffffu;

// This thread's lane in its warp.
__device__ __forceinline__ int lane_id() {
  return int(threadIdx.x & 31u);
}

// Whether this lane is the lowest of `lanes` (a group of __match_any_sync, which holds it): the
// one lane that adds the group's sum.
__device__ __forceinline__ bool leads(unsigned lanes) {
  return __ffs(int(lanes)) - 1 == lane_id();
}

}  // namespace mpsph::gpu
