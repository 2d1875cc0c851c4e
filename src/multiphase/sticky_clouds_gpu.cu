// The sticky-cloud stage on the device: the same partner choice, collision and conversion
// functions as the OpenMP drivers (sticky_clouds.cpp). Compiled with -fmad=false (CMakeLists.txt):
// the distances and velocities that decide the pairs are then rounded as on the CPU, so both
// backends pair the same clouds and write the same values.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/cub.cuh>

#include "core/block_sum_gpu.cuh"
#include "core/cuda_check.hpp"
#include "multiphase/cloud_pairing_kern.hpp"
#include "multiphase/cloud_viscosity_kern.hpp"
#include "multiphase/sticky_clouds_gpu.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 1024;  // fixed for a given n: the sums' order is reproducible

// partial[b * stride + c] of every block b -> out[c], c < n_out.
__global__ void total_kernel(const double* partial, unsigned n_partial, unsigned stride,
                             unsigned n_out, double* out) {
  for (unsigned c = 0; c < n_out; ++c) {
    double acc = 0.0;
    for (unsigned b = threadIdx.x; b < n_partial; b += blockDim.x) acc += partial[b * stride + c];
    const double total = block_sum<kThreads>(acc);
    if (threadIdx.x == 0) out[c] = total;
  }
}

__global__ void grid_kernel(const double* m_max, double pi_sigma, Box box, CloudGrid* grid) {
  *grid = make_cloud_grid(cloud_radius(*m_max, pi_sigma), box);
}

__global__ void key_kernel(ParticleView s, std::size_t begin, std::size_t n, const CloudGrid* grid,
                           uint64_t* keys, uint32_t* local) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  keys[k] = cloud_key(*grid, s.pos[begin + k]);
  local[k] = uint32_t(k);
}

__global__ void partner_kernel(ParticleView s, ActiveSet a, const CloudGrid* grid,
                               const uint64_t* keys, const uint32_t* local, std::size_t begin,
                               std::size_t n, Box box, double pi_sigma, int64_t* partner) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const CloudSet set{*grid, keys, local, begin, n};
  partner[k] = choose_cloud_partner(s, a, set, box, pi_sigma, begin + k);
}

__global__ void resolve_kernel(ParticleView s, CloudCollisionParams p, const int64_t* partner,
                               std::size_t begin, std::size_t n, Box box, int64_t step,
                               double tick_len, double* partial) {
  double radiated = 0.0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x)
    radiated += resolve_cloud_pair(s, p, partner, begin, box, step, tick_len, begin + k);
  const double total = block_sum<kThreads>(radiated);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void formation_kernel(CloudFormationParams p, ParticleView s, ActiveSet a, std::size_t n,
                                 double tick_len, double* partial) {
  double energy = 0.0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = a[k];
    energy += form_cloud_from_gas(p, s, i, particle_step(s, i, tick_len));
  }
  const double total = block_sum<kThreads>(energy);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void phase_kernel(PhaseParams p, ParticleView s, double* partial) {
  double m[kNumPhases] = {0, 0, 0, 0};
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < s.n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int ph = particle_phase(p, s, i);
    if (ph >= 0) m[ph] += s.mass[i];
  }
  for (int c = 0; c < kNumPhases; ++c) {
    const double total = block_sum<kThreads>(m[c]);
    if (threadIdx.x == 0) partial[blockIdx.x * kNumPhases + c] = total;
  }
}

// Scheme A: the clouds' bounding box (one block) and the k-nearest grid over it.
__global__ void viscosity_grid_kernel(ParticleView s, std::size_t begin, std::size_t n, int k,
                                      Box box, CloudGrid* grid) {
  __shared__ double sh[6][kThreads];
  double b[6] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (std::size_t q = threadIdx.x; q < n; q += blockDim.x) {
    const Vec3d x = s.pos[begin + q];
    b[0] = fmin(b[0], x.x), b[1] = fmin(b[1], x.y), b[2] = fmin(b[2], x.z);
    b[3] = fmax(b[3], x.x), b[4] = fmax(b[4], x.y), b[5] = fmax(b[5], x.z);
  }
  for (int c = 0; c < 6; ++c) sh[c][threadIdx.x] = b[c];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      for (int c = 0; c < 6; ++c)
        sh[c][threadIdx.x] = c < 3 ? fmin(sh[c][threadIdx.x], sh[c][threadIdx.x + stride])
                                   : fmax(sh[c][threadIdx.x], sh[c][threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *grid = make_viscosity_grid(Vec3d{sh[0][0], sh[1][0], sh[2][0]},
                                Vec3d{sh[3][0], sh[4][0], sh[5][0]}, n, k, box);
}

__global__ void fluid_kernel(ParticleView s, const CloudGrid* grid, const uint64_t* keys,
                             const uint32_t* local, std::size_t begin, std::size_t n, Box box,
                             int k, double sigma_c, uint32_t* nbr, int* n_nbr, double* h,
                             double* rho, double* c) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (q >= n) return;
  NearestClouds nc;
  find_nearest_clouds(s, *grid, keys, local, begin, n, box, uint32_t(q), k, nc);
  const CloudFluid f = cloud_fluid(s, nc, begin, uint32_t(q), sigma_c);
  for (int m = 0; m < nc.n; ++m) nbr[q * std::size_t(k) + std::size_t(m)] = nc.j[m];
  n_nbr[q] = nc.n;
  h[q] = f.h;
  rho[q] = f.rho;
  c[q] = f.c;
}

__global__ void viscous_acc_kernel(ParticleView s, ActiveSet a, CloudViscosityParams p,
                                   const uint32_t* nbr, const int* n_nbr, const double* h,
                                   const double* rho, const double* c, std::size_t begin,
                                   std::size_t n, int k, Box box, Vec3d* acc) {
  const std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (q >= n) return;
  const std::size_t i = begin + q;
  const bool active = a.contains(s.ti_end, i) && s.type[i] == kCloud;
  acc[q] = !active ? Vec3d{0, 0, 0}
                   : cloud_viscous_acc(s, p, nbr + q * std::size_t(k), n_nbr[q], h, rho, c, begin,
                                       uint32_t(q), box);
  if (active && p.courant > 0.0)
    record_viscosity_step_rate(s, p, nbr + q * std::size_t(k), n_nbr[q], h, c, begin, uint32_t(q),
                               box);
}

__global__ void cloud_step_kernel(ParticleView s, ActiveSet a, std::size_t begin, std::size_t n) {
  const std::size_t i = begin + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < begin + n && a.contains(s.ti_end, i)) limit_cloud_step(s, i);
}

// The clouds' receivers among the active gas (follow_cloud_steps).
__global__ void receiver_step_kernel(ParticleView s, ActiveSet a, std::size_t n) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k < n) limit_receiver_step(s, a[k]);
}

__global__ void viscous_kick_kernel(ParticleView s, ActiveSet a, const Vec3d* acc,
                                    std::size_t begin, std::size_t n, double tick_len,
                                    double* partial) {
  double dissipated = 0.0;
  for (std::size_t q = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; q < n;
       q += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = begin + q;
    if (!a.contains(s.ti_end, i) || s.type[i] != kCloud) continue;
    dissipated += apply_viscous_kick(s, i, acc[q], particle_step(s, i, tick_len));
  }
  const double total = block_sum<kThreads>(dissipated);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

unsigned reduction_blocks(std::size_t n) {
  return std::max(1u, std::min(kMaxBlocks, cuda_blocks(n, kThreads)));
}

}  // namespace

GpuStickyClouds::GpuStickyClouds(const StickyCloudsModel& model) : model_(model) {
  const char* what = "allocation of the sticky-cloud buffers";
  cuda_check(cudaMalloc(&m_max_, sizeof(double)), what);
  cuda_check(cudaMalloc(&grid_, sizeof(CloudGrid)), what);
  cuda_check(cudaMalloc(&partial_, kMaxBlocks * kNumPhases * sizeof(double)), what);
  cuda_check(cudaMalloc(&collision_energy_, sizeof(double)), what);
  cuda_check(cudaMalloc(&formation_energy_, sizeof(double)), what);
  cuda_check(cudaMalloc(&phase_, kNumPhases * sizeof(double)), what);
  cuda_check(cudaMemset(collision_energy_, 0, sizeof(double)), what);
  cuda_check(cudaMemset(formation_energy_, 0, sizeof(double)), what);
}

GpuStickyClouds::~GpuStickyClouds() {
  cudaFree(keys_in_);
  cudaFree(keys_);
  cudaFree(local_in_);
  cudaFree(local_);
  cudaFree(partner_);
  cudaFree(temp_);
  cudaFree(m_max_);
  cudaFree(grid_);
  cudaFree(partial_);
  cudaFree(collision_energy_);
  cudaFree(formation_energy_);
  cudaFree(phase_);
  cudaFree(nbr_);
  cudaFree(n_nbr_);
  cudaFree(fluid_);
}

void GpuStickyClouds::reserve(std::size_t n) {
  const char* what = "allocation of the sticky-cloud buffers";
  if (n > capacity_) {
    const std::size_t cap = std::max<std::size_t>(n + n / 4, 1024);
    cudaFree(keys_in_);
    cudaFree(keys_);
    cudaFree(local_in_);
    cudaFree(local_);
    cudaFree(partner_);
    cuda_check(cudaMalloc(&keys_in_, cap * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&keys_, cap * sizeof(uint64_t)), what);
    cuda_check(cudaMalloc(&local_in_, cap * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&local_, cap * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&partner_, cap * sizeof(int64_t)), what);
    capacity_ = cap;
  }
  // CUB's temporary storage for the sort and the max of n items (query only: no work).
  std::size_t sort_bytes = 0, max_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in_, keys_, local_in_,
                                             local_, int(n)),
             "sticky-cloud sort (size query)");
  cuda_check(cub::DeviceReduce::Max(nullptr, max_bytes, static_cast<const double*>(nullptr), m_max_,
                                    int(n)),
             "sticky-cloud max (size query)");
  const std::size_t bytes = std::max(sort_bytes, max_bytes);
  if (bytes > temp_bytes_) {
    cudaFree(temp_);
    cuda_check(cudaMalloc(&temp_, bytes), what);
    temp_bytes_ = bytes;
  }
}

void GpuStickyClouds::collide(const ParticleView& d, const ActiveSet& a, const Box& box,
                              std::size_t begin, std::size_t end, int64_t step, double tick_len) {
  const std::size_t n = end - begin;
  n_last_ = n;
  cuda_check(cudaMemsetAsync(collision_energy_, 0, sizeof(double)), "sticky-cloud energy");
  if (n == 0) return;
  reserve(n);
  if (n < 2) {
    cuda_check(cudaMemsetAsync(partner_, 0xFF, sizeof(int64_t)), "sticky-cloud partners");
    return;
  }
  const double pi_sigma = model_.collision.pi_sigma;
  std::size_t bytes = temp_bytes_;
  cuda_check(cub::DeviceReduce::Max(temp_, bytes, d.mass + begin, m_max_, int(n)),
             "sticky-cloud max mass");
  grid_kernel<<<1, 1>>>(m_max_, pi_sigma, box, static_cast<CloudGrid*>(grid_));
  cuda_check_launch("grid_kernel");
  const unsigned blocks = cuda_blocks(n, kThreads);
  key_kernel<<<blocks, kThreads>>>(d, begin, n, static_cast<const CloudGrid*>(grid_), keys_in_,
                                   local_in_);
  cuda_check_launch("key_kernel");
  bytes = temp_bytes_;
  cuda_check(
      cub::DeviceRadixSort::SortPairs(temp_, bytes, keys_in_, keys_, local_in_, local_, int(n)),
      "sticky-cloud sort");
  partner_kernel<<<blocks, kThreads>>>(d, a, static_cast<const CloudGrid*>(grid_), keys_, local_,
                                       begin, n, box, pi_sigma, partner_);
  cuda_check_launch("partner_kernel");
  const unsigned rb = reduction_blocks(n);
  resolve_kernel<<<rb, kThreads>>>(d, model_.collision, partner_, begin, n, box, step, tick_len,
                                   partial_);
  cuda_check_launch("resolve_kernel");
  total_kernel<<<1, kThreads>>>(partial_, rb, 1, 1, collision_energy_);
  cuda_check_launch("total_kernel");
}

void GpuStickyClouds::viscosity(const ParticleView& d, const ActiveSet& a, const Box& box,
                                std::size_t begin, std::size_t end, double tick_len) {
  const std::size_t n = end - begin;
  cuda_check(cudaMemsetAsync(collision_energy_, 0, sizeof(double)), "cloud viscosity energy");
  if (n < 2) return;
  reserve(n);
  const CloudViscosityParams& p = model_.viscosity;
  const int k = std::min<int>(p.k_ngb, int(n) - 1);
  if (n > visc_capacity_) {
    const char* what = "allocation of the cloud viscosity buffers";
    const std::size_t cap = std::max<std::size_t>(n + n / 4, 1024);
    cudaFree(nbr_);
    cudaFree(n_nbr_);
    cudaFree(fluid_);
    cuda_check(cudaMalloc(&nbr_, cap * kMaxCloudNeighbours * sizeof(uint32_t)), what);
    cuda_check(cudaMalloc(&n_nbr_, cap * sizeof(int)), what);
    cuda_check(cudaMalloc(&fluid_, 6 * cap * sizeof(double)), what);  // h, rho, c, acc (3)
    visc_capacity_ = cap;
  }
  double* h = fluid_;
  double* rho = fluid_ + visc_capacity_;
  double* c = fluid_ + 2 * visc_capacity_;
  CloudGrid* grid = static_cast<CloudGrid*>(grid_);
  viscosity_grid_kernel<<<1, kThreads>>>(d, begin, n, k, box, grid);
  cuda_check_launch("viscosity_grid_kernel");
  const unsigned blocks = cuda_blocks(n, kThreads);
  key_kernel<<<blocks, kThreads>>>(d, begin, n, grid, keys_in_, local_in_);
  cuda_check_launch("key_kernel");
  std::size_t bytes = temp_bytes_;
  cuda_check(
      cub::DeviceRadixSort::SortPairs(temp_, bytes, keys_in_, keys_, local_in_, local_, int(n)),
      "cloud viscosity sort");
  fluid_kernel<<<blocks, kThreads>>>(d, grid, keys_, local_, begin, n, box, k, p.sigma_c, nbr_,
                                     n_nbr_, h, rho, c);
  cuda_check_launch("fluid_kernel");
  Vec3d* acc = reinterpret_cast<Vec3d*>(fluid_ + 3 * visc_capacity_);
  viscous_acc_kernel<<<blocks, kThreads>>>(d, a, p, nbr_, n_nbr_, h, rho, c, begin, n, k, box, acc);
  cuda_check_launch("viscous_acc_kernel");
  const unsigned rb = reduction_blocks(n);
  viscous_kick_kernel<<<rb, kThreads>>>(d, a, acc, begin, n, tick_len, partial_);
  cuda_check_launch("viscous_kick_kernel");
  total_kernel<<<1, kThreads>>>(partial_, rb, 1, 1, collision_energy_);
  cuda_check_launch("total_kernel");
}

void GpuStickyClouds::limit_steps(const ParticleView& d, const ActiveSet& a, std::size_t begin,
                                  std::size_t end) {
  if (end > begin) {
    const std::size_t n = end - begin;
    cloud_step_kernel<<<cuda_blocks(n, kThreads), kThreads>>>(d, a, begin, n);
    cuda_check_launch("cloud_step_kernel");
  }
  const std::size_t ng = a.gas_count(d.n_gas);
  if (ng == 0) return;
  receiver_step_kernel<<<cuda_blocks(ng, kThreads), kThreads>>>(d, a, ng);
  cuda_check_launch("receiver_step_kernel");
}

void GpuStickyClouds::form_clouds(const ParticleView& d, const ActiveSet& a, double tick_len) {
  const std::size_t n = a.gas_count(d.n_gas);
  const unsigned rb = reduction_blocks(n);
  formation_kernel<<<rb, kThreads>>>(model_.formation, d, a, n, tick_len, partial_);
  cuda_check_launch("formation_kernel");
  total_kernel<<<1, kThreads>>>(partial_, rb, 1, 1, formation_energy_);
  cuda_check_launch("total_kernel");
}

std::array<double, kNumPhases> GpuStickyClouds::phase_masses(const ParticleView& d) {
  const unsigned rb = reduction_blocks(d.n);
  phase_kernel<<<rb, kThreads>>>(model_.phase, d, partial_);
  cuda_check_launch("phase_kernel");
  total_kernel<<<1, kThreads>>>(partial_, rb, kNumPhases, kNumPhases, phase_);
  cuda_check_launch("total_kernel");
  std::array<double, kNumPhases> m{};
  cuda_check(cudaMemcpy(m.data(), phase_, sizeof m, cudaMemcpyDeviceToHost), "phase masses");
  return m;
}

std::vector<int64_t> GpuStickyClouds::partners() const {
  std::vector<int64_t> p(n_last_);
  if (n_last_ > 0)
    cuda_check(cudaMemcpy(p.data(), partner_, n_last_ * sizeof(int64_t), cudaMemcpyDeviceToHost),
               "sticky-cloud partners");
  return p;
}

}  // namespace mpsph
