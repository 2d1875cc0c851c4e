#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cub/device/device_radix_sort.cuh>
#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/sfc_key.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kBoxBlocks = 512;

struct Bounds {
  double lo[3], hi[3];
};

__device__ void bounds_reduce(Bounds& b) {
  __shared__ double sh[6][kThreads];
  for (int k = 0; k < 3; ++k) sh[k][threadIdx.x] = b.lo[k], sh[3 + k][threadIdx.x] = b.hi[k];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      for (int k = 0; k < 3; ++k) {
        sh[k][threadIdx.x] = fmin(sh[k][threadIdx.x], sh[k][threadIdx.x + s]);
        sh[3 + k][threadIdx.x] = fmax(sh[3 + k][threadIdx.x], sh[3 + k][threadIdx.x + s]);
      }
    __syncthreads();
  }
  for (int k = 0; k < 3; ++k) b.lo[k] = sh[k][0], b.hi[k] = sh[3 + k][0];
}

__global__ void bounds_kernel(const Vec3d* pos, std::size_t n, Bounds* partial) {
  Bounds b{{DBL_MAX, DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX, -DBL_MAX}};
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const Vec3d x = pos[i];
    b.lo[0] = fmin(b.lo[0], x.x), b.lo[1] = fmin(b.lo[1], x.y), b.lo[2] = fmin(b.lo[2], x.z);
    b.hi[0] = fmax(b.hi[0], x.x), b.hi[1] = fmax(b.hi[1], x.y), b.hi[2] = fmax(b.hi[2], x.z);
  }
  bounds_reduce(b);
  if (threadIdx.x == 0) partial[blockIdx.x] = b;
}

// The key cube of order_keys() for an open box: the bounding box's corner and largest extent.
__global__ void frame_kernel(const Bounds* partial, unsigned n_partial, KeyCube* frame) {
  Bounds b{{DBL_MAX, DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX, -DBL_MAX}};
  for (unsigned k = threadIdx.x; k < n_partial; k += blockDim.x)
    for (int a = 0; a < 3; ++a)
      b.lo[a] = fmin(b.lo[a], partial[k].lo[a]), b.hi[a] = fmax(b.hi[a], partial[k].hi[a]);
  bounds_reduce(b);
  if (threadIdx.x == 0) {
    double edge = fmax(b.hi[0] - b.lo[0], fmax(b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]));
    if (!(edge > 0.0)) edge = 1.0;
    *frame = KeyCube{Vec3d{b.lo[0], b.lo[1], b.lo[2]}, edge};
  }
}

// The keys in `fixed` (a periodic box's cube, or one the caller gave), else in `found`.
__global__ void keys_kernel(const Vec3d* pos, std::size_t n, Box box, KeyCube fixed,
                            const KeyCube* found, uint64_t* keys, uint32_t* idx) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const KeyCube f = found ? *found : fixed;
  keys[i] = sfc_key(wrap_position(pos[i], box), f.lo, f.edge);
  idx[i] = uint32_t(i);
}

__global__ void gather_types_kernel(const uint8_t* type, const uint32_t* idx, std::size_t n,
                                    uint8_t* out) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = type[idx[i]];
}

}  // namespace

DeviceOrder::~DeviceOrder() {
  cudaFree(frame_);
  cudaFree(partial_);
}

namespace {

// The pieces of one sort inside the lent scratch: the permutation first, then either the sort's
// keys, indices and types with CUB's temporary storage, or (after the sort) the reorder buffer.
struct OrderLayout {
  std::size_t keys, keys_alt, idx, idx_alt, types, types_alt, temp, temp_bytes, total;
};

OrderLayout order_layout(std::size_t n) {
  std::size_t a = 0, b = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, a, static_cast<const uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
                 static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n)),
             "order stage: sort size query");
  cuda_check(cub::DeviceRadixSort::SortPairs(
                 nullptr, b, static_cast<const uint8_t*>(nullptr), static_cast<uint8_t*>(nullptr),
                 static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(n)),
             "order stage: sort size query");
  using S = DeviceScratch;
  OrderLayout l;
  std::size_t at = S::align(n * sizeof(uint32_t));  // the permutation
  const std::size_t region = at;
  l.keys = at, at += S::align(n * sizeof(uint64_t));
  l.keys_alt = at, at += S::align(n * sizeof(uint64_t));
  l.idx = at, at += S::align(n * sizeof(uint32_t));
  l.idx_alt = at, at += S::align(n * sizeof(uint32_t));
  l.types = at, at += S::align(n);
  l.types_alt = at, at += S::align(n);
  l.temp = at;
  l.temp_bytes = std::max(a, b);
  at += S::align(l.temp_bytes);
  l.total = std::max(at, region + S::align(n * DeviceParticles::permute_scratch_bytes()));
  return l;
}

}  // namespace

void DeviceOrder::sort(DeviceParticles& d, const Box& box, bool mixed_types, DeviceScratch* scratch,
                       const KeyCube* cube) {
  const std::size_t n = d.size();
  if (n == 0) return;
  if (n >= (std::size_t(1) << 31))
    throw Error("order stage: " + std::to_string(n) +
                " particles exceed the 2^31 that the device sort indexes");
  if (!frame_) {
    cuda_check(cudaMalloc(&frame_, sizeof(KeyCube)), "allocation of the order stage");
    cuda_check(cudaMalloc(&partial_, kBoxBlocks * sizeof(Bounds)), "allocation of the order stage");
  }
  const OrderLayout l = order_layout(n);
  char* base =
      static_cast<char*>((scratch ? scratch : &own_)->acquire(l.total, "the order stage's sort"));
  perm_ = reinterpret_cast<uint32_t*>(base);
  uint64_t* keys = reinterpret_cast<uint64_t*>(base + l.keys);
  uint64_t* keys_alt = reinterpret_cast<uint64_t*>(base + l.keys_alt);
  uint32_t* idx = reinterpret_cast<uint32_t*>(base + l.idx);
  uint32_t* idx_alt = reinterpret_cast<uint32_t*>(base + l.idx_alt);
  uint8_t* types = reinterpret_cast<uint8_t*>(base + l.types);
  uint8_t* types_alt = reinterpret_cast<uint8_t*>(base + l.types_alt);
  void* temp = base + l.temp;
  const ParticleView v = d.view();
  KeyCube fixed{box.lo, std::max({box.size.x, box.size.y, box.size.z})};
  const bool find = !box.periodic && cube == nullptr;
  if (!box.periodic && cube) fixed = *cube;
  if (find) {
    const unsigned blocks = std::min(kBoxBlocks, cuda_blocks(n, kThreads));
    bounds_kernel<<<blocks, kThreads>>>(v.pos, n, static_cast<Bounds*>(partial_));
    cuda_check_launch("bounds_kernel");
    frame_kernel<<<1, kThreads>>>(static_cast<const Bounds*>(partial_), blocks,
                                  static_cast<KeyCube*>(frame_));
    cuda_check_launch("frame_kernel");
  }
  keys_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(
      v.pos, n, box, fixed, find ? static_cast<const KeyCube*>(frame_) : nullptr, keys, idx);
  cuda_check_launch("keys_kernel");
  std::size_t bytes = l.temp_bytes;
  // Radix sorts are stable: equal keys keep index order, as order_particles' tie-break.
  cuda_check(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_alt, idx,
                                             mixed_types ? idx_alt : perm_, int(n), 0,
                                             3 * kMortonBitsPerAxis),
             "order stage: key sort");
  if (mixed_types) {
    gather_types_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(v.type, idx_alt, n, types);
    cuda_check_launch("gather_types_kernel");
    bytes = l.temp_bytes;
    cuda_check(cub::DeviceRadixSort::SortPairs(temp, bytes, types, types_alt, idx_alt, perm_,
                                               int(n), 0, 3),
               "order stage: type sort");
  }
  // The sort's buffers are free now: the reorder buffer takes their place.
  d.permute(perm_, {}, base + l.keys);
}

}  // namespace mpsph
