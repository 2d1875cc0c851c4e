// Sum of one double per thread over a CUDA block of kThreads threads, in a fixed order (the same
// tree for a given block size, so sums are reproducible run to run); every thread gets the total.
// Safe to call several times in one kernel (it synchronises before reusing its shared memory).
#pragma once

namespace mpsph {

template <unsigned kThreads>
__device__ double block_sum(double mine) {
  __shared__ double sh[kThreads];
  __syncthreads();
  sh[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) sh[threadIdx.x] += sh[threadIdx.x + stride];
    __syncthreads();
  }
  return sh[0];
}

}  // namespace mpsph
