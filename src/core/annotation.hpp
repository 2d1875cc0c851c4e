// The one place that writes the device annotation. Pure physics functions are marked MPSPH_HD
// so that the OpenMP loops and the CUDA kernels call the very same code.
#pragma once

#if defined(__CUDACC__)
#define MPSPH_HD __host__ __device__ __forceinline__
#define MPSPH_DEVICE_CODE 1
#else
#define MPSPH_HD inline
#endif
