// The sinks stage on the device (sinks_gpu.hpp): the steps of sink_step() in sinks.cpp as kernels
// over the same sink_kern.hpp functions. Counts live in device memory and bound the loops of the
// kernels that follow; the choices that must not depend on the thread order (which candidates
// become sinks, in which order a sink merges its gas) are made by one thread over sorted lists.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "sinks/sink_timestep_kern.hpp"
#include "sinks/sinks_gpu.hpp"
#include "timestep/block_step_kern.hpp"

namespace mpsph {

namespace {

constexpr int kMaxSinks = 1 << 16;
constexpr int kMaxCandidates = 1 << 16;
constexpr int kMaxMembers = 4096;  // gas within h_acc of one candidate
constexpr unsigned kGroupBlocks = 64;
constexpr unsigned kThreads = 128;

// counters_: the device ints the kernels share.
// kNMerges (after kOverflow) counts the merges since the last take_merges(), not per step.
enum Counter { kNSinks, kNCand, kNMade, kNPairs, kOverflow, kNMerges, kCounters };
enum Overflow { kOverSinks = 1, kOverCandidates = 2, kOverMembers = 4, kOverMerges = 8 };

__device__ void flag(int* c, int bit) {
  atomicOr(&c[kOverflow], bit);
}

__global__ void sink_list_kernel(ParticleView p, uint32_t* sinks, int* c) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < p.n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (p.type[i] == kSink) {
      const int slot = atomicAdd(&c[kNSinks], 1);
      if (slot < kMaxSinks)
        sinks[slot] = uint32_t(i);
      else
        flag(c, kOverSinks);
    }
}

__global__ void candidate_kernel(ParticleView p, ActiveSet a, std::size_t n_gas_active, Box box,
                                 SinkKernParams sp, const uint32_t* sinks, uint32_t* cand, int* c) {
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n_gas_active;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t i = a[k];
    if (p.type[i] != kGas || sink_local_criteria(p, i, sp) != 0 ||
        !sink_isolated(p, i, sinks, min(c[kNSinks], kMaxSinks), box, sp.r_crit))
      continue;
    const int slot = atomicAdd(&c[kNCand], 1);
    if (slot < kMaxCandidates)
      cand[slot] = uint32_t(i);
    else
      flag(c, kOverCandidates);
  }
}

// Insertion sort of v[0..k) by key (k is small: one group or the sinks' gas of one step).
template <class Less>
__device__ void small_sort(uint32_t* v, int k, Less less) {
  for (int x = 1; x < k; ++x) {
    const uint32_t e = v[x];
    int y = x - 1;
    while (y >= 0 && less(e, v[y])) {
      v[y + 1] = v[y];
      --y;
    }
    v[y + 1] = e;
  }
}

// Collects with the whole block the gas j of the grid cells near x (feedback_cells_near: all gas
// within h_acc of x on the sinks' grid) for which take(j) holds into `out`, in no fixed order;
// returns the count (all threads), or -1 when it exceeds kMaxMembers.
static_assert(kThreads >= 27, "collect_block: one thread per cell of the 27");
template <class Take>
__device__ int collect_block(const FeedbackGrid& g, const Vec3d& x, uint32_t* out, Take take) {
  __shared__ int count, n_cells;
  __shared__ uint64_t key[27];
  __shared__ std::size_t first[27], offset[28];  // cell c: sorted positions first[c] + [0, size)
  if (threadIdx.x == 0) {
    count = 0;
    n_cells = g.n > 0 ? feedback_cells_near(g, x, key) : 0;
  }
  __syncthreads();
  if (int(threadIdx.x) < n_cells) {
    const std::size_t b = lower_bound_key(g.keys, g.n, key[threadIdx.x]);
    first[threadIdx.x] = b;
    offset[threadIdx.x + 1] = lower_bound_key(g.keys, g.n, key[threadIdx.x] + 1) - b;  // size
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    offset[0] = 0;
    for (int e = 0; e < n_cells; ++e) offset[e + 1] += offset[e];
  }
  __syncthreads();
  const std::size_t total = offset[n_cells];
  int cell = 0;
  for (std::size_t e = threadIdx.x; e < total; e += blockDim.x) {
    while (e >= offset[cell + 1]) ++cell;
    const std::size_t j = g.idx[first[cell] + (e - offset[cell])];
    if (take(j)) {
      const int slot = atomicAdd(&count, 1);
      if (slot < kMaxMembers) out[slot] = uint32_t(j);
    }
  }
  __syncthreads();
  const int k = count;
  __syncthreads();
  return k <= kMaxMembers ? k : -1;
}

// One block per candidate: its group from the grid, the potential minimum tested by all threads,
// and only for the minimum the group in store order (as sinks.cpp) and its energies:
// sink_group_forms split between the block and thread 0.
__global__ void group_kernel(ParticleView p, Box box, SinkKernParams sp, const FeedbackGrid* grid,
                             const uint32_t* cand, uint8_t* pass, uint32_t* members, int* c) {
  const int n_cand = min(c[kNCand], kMaxCandidates);
  uint32_t* m = members + std::size_t(blockIdx.x) * kMaxMembers;
  const double h2 = sp.h_acc * sp.h_acc;
  const FeedbackGrid g = *grid;
  for (int q = blockIdx.x; q < n_cand; q += gridDim.x) {
    const std::size_t i = cand[q];
    const int k = collect_block(g, p.pos[i], m,
                                [&](std::size_t j) { return sink_group_member(p, i, j, box, h2); });
    bool lower = false;
    for (int e = threadIdx.x; e < k; e += blockDim.x) lower = lower || p.pot[m[e]] < p.pot[i];
    const bool not_minimum = __syncthreads_or(lower) != 0;
    if (threadIdx.x == 0) {
      if (k < 0) {
        flag(c, kOverMembers);
        pass[q] = 0;
      } else if (not_minimum) {
        pass[q] = 0;
      } else {
        // The block found it the minimum: the rest of sink_group_forms, the energies.
        small_sort(m, k, [](uint32_t x, uint32_t y) { return x < y; });
        pass[q] = sink_energy_criteria(group_energies(p, m, k, i, box, sp)) == 0;
      }
    }
    __syncthreads();
  }
}

// One thread: the passing candidates by (potential, id), each made a sink unless one made before
// it in this step lies within r_crit (sinks.cpp sink_step).
__global__ void select_kernel(ParticleView p, Box box, SinkKernParams sp, const uint32_t* cand,
                              const uint8_t* pass, uint32_t* ok, uint32_t* made, int* c,
                              double time) {
  const int n_cand = min(c[kNCand], kMaxCandidates);
  int n_ok = 0;
  for (int q = 0; q < n_cand; ++q)
    if (pass[q]) ok[n_ok++] = cand[q];
  small_sort(ok, n_ok, [&](uint32_t x, uint32_t y) {
    return sink_candidate_before(p.pot[x], p.id[x], p.pot[y], p.id[y]);
  });
  int n_made = 0;
  for (int q = 0; q < n_ok; ++q) {
    const uint32_t i = ok[q];
    if (!sink_isolated(p, i, made, n_made, box, sp.r_crit)) continue;
    make_sink(p, i, time);
    made[n_made++] = i;
  }
  c[kNMade] = n_made;
}

// One block: each new sink in turn takes the active gas within h_acc, in the order of their ids.
// The grid is that of the candidates: creation and merging change types, not gas positions.
__global__ void take_group_kernel(ParticleView p, ActiveSet a, Box box, SinkKernParams sp,
                                  const FeedbackGrid* grid, const uint32_t* made, uint32_t* members,
                                  int* c) {
  const int n_made = c[kNMade];
  const double h2 = sp.h_acc * sp.h_acc;
  const FeedbackGrid g = *grid;
  for (int q = 0; q < n_made; ++q) {
    const std::size_t s = made[q];
    const int k = collect_block(g, p.pos[s], members, [&](std::size_t j) {
      return j != s && a.contains(p.ti_end, j) && sink_group_member(p, s, j, box, h2);
    });
    if (threadIdx.x == 0) {
      if (k < 0) {
        flag(c, kOverMembers);
      } else {
        small_sort(members, k, [&](uint32_t x, uint32_t y) { return p.id[x] < p.id[y]; });
        for (int e = 0; e < k; ++e) merge_into_sink(p, s, members[e], box);
      }
    }
    __syncthreads();
  }
}

// Each active gas particle: the active sink it is most bound to, as a (sink slot, gas) pair.
__global__ void target_kernel(ParticleView p, ActiveSet a, std::size_t n_gas_active, Box box,
                              SinkKernParams sp, const uint32_t* sinks, uint2* pairs,
                              std::size_t pairs_cap, int* c) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n_gas_active;
       k += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t j = a[k];
    if (p.type[j] != kGas) continue;
    int best_q = -1;
    double best = HUGE_VAL;
    uint64_t best_id = 0;
    for (int q = 0; q < n_sinks; ++q) {
      const std::size_t s = sinks[q];
      if (!a.contains(p.ti_end, s)) continue;
      const double e = accretion_energy(p, s, j, box, sp);
      if (e < HUGE_VAL && (best_q < 0 || sink_preferred(e, p.id[s], best, best_id))) {
        best = e;
        best_id = p.id[s];
        best_q = q;
      }
    }
    if (best_q < 0) continue;
    const int slot = atomicAdd(&c[kNPairs], 1);
    if (std::size_t(slot) < pairs_cap) pairs[slot] = make_uint2(uint32_t(best_q), uint32_t(j));
  }
}

// One thread per sink: its gas in the order of their ids.
__global__ void merge_kernel(ParticleView p, Box box, const uint32_t* sinks, const uint2* pairs,
                             int* c) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  const int n_pairs = c[kNPairs];
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n_sinks; q += gridDim.x * blockDim.x) {
    const std::size_t s = sinks[q];
    bool any = true;
    uint64_t last = 0;
    bool first = true;
    while (any) {
      any = false;
      uint64_t best_id = 0;
      uint32_t best_j = 0;
      for (int e = 0; e < n_pairs; ++e) {
        if (int(pairs[e].x) != q) continue;
        const uint32_t j = pairs[e].y;
        const uint64_t id = p.id[j];
        if ((first || id > last) && (!any || id < best_id)) {
          any = true;
          best_id = id;
          best_j = j;
        }
      }
      if (any) {
        merge_into_sink(p, s, best_j, box);
        last = best_id;
        first = false;
      }
    }
  }
}

// Merging (sink_merge_kern.hpp): each sink's choice of partner, then the mutual pairs, each merged
// by the thread of its lower-id sink (the pairs are disjoint).
__global__ void partner_kernel(ParticleView p, ActiveSet a, Box box, SinkMergeParams mp,
                               const uint32_t* sinks, int64_t* partner, const int* c) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n_sinks; q += gridDim.x * blockDim.x)
    partner[q] = choose_sink_partner(p, a, sinks, n_sinks, box, mp, q);
}

__global__ void resolve_kernel(ParticleView p, Box box, SinkMergeParams mp, const uint32_t* sinks,
                               const int64_t* partner, SinkMergeEvent* merges, int* c,
                               double time) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n_sinks; q += gridDim.x * blockDim.x) {
    SinkMergeRecord rec;
    if (!resolve_sink_pair(p, sinks, partner, box, mp, q, &rec)) continue;
    const int slot = atomicAdd(&c[kNMerges], 1);
    if (slot < kMaxSinks)
      merges[slot] = SinkMergeEvent{time, rec};
    else
      flag(c, kOverMerges);
  }
}

__global__ void wake_kernel(ParticleView p, ActiveSet a, Box box, double radius,
                            const uint32_t* sinks, const int* c) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  const double r2 = radius * radius;
  const int64_t now = a.tick;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < p.n_gas;
       j += std::size_t(gridDim.x) * blockDim.x) {
    if (p.type[j] != kGas || a.contains(p.ti_end, j)) continue;  // active (rungs move on later)
    int want = 0;
    for (int q = 0; q < n_sinks; ++q) {
      const std::size_t s = sinks[q];
      if (p.type[s] == kSink && a.contains(p.ti_end, s) &&
          norm2(min_image(p.pos[j] - p.pos[s], box)) < r2)
        want = max(want, int(p.rung[s]));
    }
    if (want <= int(p.rung[j])) continue;
    p.rung_wake[j] = max(p.rung_wake[j], int32_t(want));
    wake_particle(p, j, now);
  }
}

// follow_gas_steps(): the shortest step of the gas near each sink, as the bits of a positive double
// (their integer order is the order of the values), then each sink follows it.
__global__ void gas_step_near_sinks_kernel(ParticleView p, ActiveSet a, Box box, double radius,
                                           double length, const uint32_t* sinks, const int* c,
                                           unsigned long long* dt_bits) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  const double r2 = radius * radius;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < p.n_gas;
       j += std::size_t(gridDim.x) * blockDim.x) {
    if (p.type[j] != kGas) continue;
    for (int q = 0; q < n_sinks; ++q)
      if (norm2(min_image(p.pos[j] - p.pos[sinks[q]], box)) < r2) {
        const double dt = gas_step_near_sink(p, j, a.tick, length);
        atomicMin(&dt_bits[q], static_cast<unsigned long long>(__double_as_longlong(dt)));
      }
  }
}

__global__ void follow_gas_step_kernel(ParticleView p, ActiveSet a, double length,
                                       const uint32_t* sinks, const int* c,
                                       const unsigned long long* dt_bits) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n_sinks; q += gridDim.x * blockDim.x) {
    const double dt = __longlong_as_double(static_cast<long long>(dt_bits[q]));
    if (dt < HUGE_VAL) follow_gas_step(p, sinks[q], dt, a.tick, length);
  }
}

__global__ void max_gas_mass_kernel(ParticleView p, double* out) {
  __shared__ double sh[kThreads];
  double m = 0.0;
  for (std::size_t i = threadIdx.x; i < p.n_gas; i += blockDim.x)
    if (p.type[i] == kGas) m = fmax(m, p.mass[i]);
  sh[threadIdx.x] = m;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = fmax(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sh[0];
}

__global__ void rows_kernel(ParticleView p, const uint32_t* sinks, const int* c, SinkRow* rows) {
  const int n_sinks = min(c[kNSinks], kMaxSinks);
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n_sinks; q += gridDim.x * blockDim.x) {
    const std::size_t i = sinks[q];
    rows[q] = SinkRow{p.id[i], p.mass[i], p.pos[i], p.vel[i], p.spin[i], p.accreted_mass[i]};
  }
}

unsigned grid_for(std::size_t n) {
  return std::max(1u, std::min(1024u, cuda_blocks(n, kThreads)));
}

void* alloc(std::size_t bytes, const char* what) {
  void* p = nullptr;
  cuda_check(cudaMalloc(&p, bytes), what);
  return p;
}

}  // namespace

GpuSinks::GpuSinks() {
  counters_ = alloc(kCounters * sizeof(int), "allocation of the sink counters");
  sinks_ = alloc(kMaxSinks * sizeof(uint32_t), "allocation of the sink list");
  cand_ = alloc(kMaxCandidates * sizeof(uint32_t), "allocation of the sink candidates");
  ok_ = alloc(kMaxCandidates * sizeof(uint32_t), "allocation of the sink candidates");
  pass_ = alloc(kMaxCandidates, "allocation of the sink candidates");
  members_ = alloc(std::size_t(kGroupBlocks) * kMaxMembers * sizeof(uint32_t),
                   "allocation of the sink groups");
  made_ = alloc(kMaxCandidates * sizeof(uint32_t), "allocation of the new sinks");
  rows_ = alloc(kMaxSinks * sizeof(SinkRow), "allocation of the sink rows");
  dt_gas_ = alloc(kMaxSinks * sizeof(unsigned long long), "allocation of the sink steps");
  partner_ = alloc(kMaxSinks * sizeof(int64_t), "allocation of the sink partners");
  merges_ = alloc(kMaxSinks * sizeof(SinkMergeEvent), "allocation of the sink merges");
  cuda_check(cudaMemset(counters_, 0, kCounters * sizeof(int)), "sink counters");
}

GpuSinks::~GpuSinks() {
  for (void* p : {counters_, sinks_, cand_, ok_, pass_, members_, made_, pairs_, rows_, dt_gas_,
                  partner_, merges_})
    cudaFree(p);
}

double GpuSinks::max_gas_mass(const ParticleView& d) {
  double* out = static_cast<double*>(rows_);  // scratch
  max_gas_mass_kernel<<<1, kThreads>>>(d, out);
  cuda_check_launch("max_gas_mass_kernel");
  double m = 0.0;
  cuda_check(cudaMemcpy(&m, out, sizeof m, cudaMemcpyDeviceToHost), "largest gas mass");
  return m;
}

void GpuSinks::list_sinks(const ParticleView& d) {
  int* c = static_cast<int*>(counters_);
  cuda_check(cudaMemsetAsync(c + kNSinks, 0, sizeof(int)), "sink counters");
  sink_list_kernel<<<grid_for(d.n), kThreads>>>(d, static_cast<uint32_t*>(sinks_), c);
  cuda_check_launch("sink_list_kernel");
}

void GpuSinks::step(const ParticleView& d, const ActiveSet& a, const Box& box,
                    const SinkKernParams& sp, const SinkMergeParams& mp, double time,
                    double wake_radius) {
  int* c = static_cast<int*>(counters_);
  auto* sinks = static_cast<uint32_t*>(sinks_);
  auto* cand = static_cast<uint32_t*>(cand_);
  auto* members = static_cast<uint32_t*>(members_);
  auto* made = static_cast<uint32_t*>(made_);
  const std::size_t n_gas_active = a.gas_count(d.n_gas);
  if (n_gas_active > pairs_cap_) {
    cudaFree(pairs_);
    pairs_ = alloc(n_gas_active * sizeof(uint2), "allocation of the accreted pairs");
    pairs_cap_ = n_gas_active;
  }
  // Counters of this step (the overflow bits stay until rows() reports them).
  cuda_check(cudaMemsetAsync(c, 0, kOverflow * sizeof(int)), "sink counters");
  list_sinks(d);
  if (n_gas_active > 0) {
    candidate_kernel<<<grid_for(n_gas_active), kThreads>>>(d, a, n_gas_active, box, sp, sinks, cand,
                                                           c);
    cuda_check_launch("candidate_kernel");
    // The candidates' groups from a grid of cells h_acc wide over the gas, built at every call
    // with active gas (a sort of the N_gas keys, O(N_gas log N_gas) once; the scan of all gas it
    // replaces was O(N_gas) per candidate).
    grid_.build_grid(d, box, feedback_range_cell(sp.h_acc));
    group_kernel<<<kGroupBlocks, kThreads>>>(d, box, sp, grid_.grid(), cand,
                                             static_cast<uint8_t*>(pass_), members, c);
    cuda_check_launch("group_kernel");
    select_kernel<<<1, 1>>>(d, box, sp, cand, static_cast<const uint8_t*>(pass_),
                            static_cast<uint32_t*>(ok_), made, c, time);
    cuda_check_launch("select_kernel");
    take_group_kernel<<<1, kThreads>>>(d, a, box, sp, grid_.grid(), made, members, c);
    cuda_check_launch("take_group_kernel");
    list_sinks(d);  // with the new ones
    target_kernel<<<grid_for(n_gas_active), kThreads>>>(d, a, n_gas_active, box, sp, sinks,
                                                        static_cast<uint2*>(pairs_), pairs_cap_, c);
    cuda_check_launch("target_kernel");
    merge_kernel<<<4, kThreads>>>(d, box, sinks, static_cast<const uint2*>(pairs_), c);
    cuda_check_launch("merge_kernel");
  }
  if (mp.r_merge > 0.0) {
    auto* partner = static_cast<int64_t*>(partner_);
    partner_kernel<<<grid_for(kMaxSinks), kThreads>>>(d, a, box, mp, sinks, partner, c);
    cuda_check_launch("partner_kernel");
    resolve_kernel<<<grid_for(kMaxSinks), kThreads>>>(
        d, box, mp, sinks, partner, static_cast<SinkMergeEvent*>(merges_), c, time);
    cuda_check_launch("resolve_kernel");
  }
  if (!a.all()) {
    wake_kernel<<<grid_for(d.n_gas), kThreads>>>(d, a, box, wake_radius, sinks, c);
    cuda_check_launch("wake_kernel");
  }
}

void GpuSinks::follow_gas_steps(const ParticleView& d, const ActiveSet& a, const Box& box,
                                double radius, double length) {
  int* c = static_cast<int*>(counters_);
  auto* sinks = static_cast<uint32_t*>(sinks_);
  auto* dt_bits = static_cast<unsigned long long*>(dt_gas_);
  list_sinks(d);
  // 0xFF bytes: the largest unsigned value, above the bits of any double (HUGE_VAL included).
  cuda_check(cudaMemsetAsync(dt_bits, 0xFF, kMaxSinks * sizeof(unsigned long long)), "sink steps");
  gas_step_near_sinks_kernel<<<grid_for(d.n_gas), kThreads>>>(d, a, box, radius, length, sinks, c,
                                                              dt_bits);
  cuda_check_launch("gas_step_near_sinks_kernel");
  follow_gas_step_kernel<<<grid_for(kMaxSinks), kThreads>>>(d, a, length, sinks, c, dt_bits);
  cuda_check_launch("follow_gas_step_kernel");
}

std::vector<SinkRow> GpuSinks::rows(const ParticleView& d) {
  int* c = static_cast<int*>(counters_);
  list_sinks(d);
  auto* out = static_cast<SinkRow*>(rows_);
  rows_kernel<<<grid_for(kMaxSinks), kThreads>>>(d, static_cast<const uint32_t*>(sinks_), c, out);
  cuda_check_launch("rows_kernel");
  int host_c[kCounters];
  cuda_check(cudaMemcpy(host_c, c, sizeof host_c, cudaMemcpyDeviceToHost), "sink counters");
  if (host_c[kOverflow] & kOverSinks)
    throw Error("sinks: more than " + std::to_string(kMaxSinks) + " sinks (GPU buffer)");
  if (host_c[kOverflow] & kOverCandidates)
    throw Error("sinks: more than " + std::to_string(kMaxCandidates) +
                " gas particles above sinks.rho_sink with div v <= 0 in one step (GPU buffer); "
                "raise sinks.rho_sink");
  if (host_c[kOverflow] & kOverMembers)
    throw Error("sinks: more than " + std::to_string(kMaxMembers) +
                " gas particles within sinks.h_acc of a sink candidate (GPU buffer); lower "
                "sinks.h_acc");
  if (host_c[kOverflow] & kOverMerges)
    throw Error("sinks: more than " + std::to_string(kMaxSinks) +
                " sink merges between two diagnostics rows (GPU buffer); lower "
                "run.diagnostics_every");
  std::vector<SinkRow> rows(std::size_t(std::min(host_c[kNSinks], kMaxSinks)));
  cuda_check(cudaMemcpy(rows.data(), out, rows.size() * sizeof(SinkRow), cudaMemcpyDeviceToHost),
             "sink rows");
  std::sort(rows.begin(), rows.end(),
            [](const SinkRow& x, const SinkRow& y) { return x.id < y.id; });
  return rows;
}

std::vector<SinkMergeEvent> GpuSinks::take_merges() {
  int* c = static_cast<int*>(counters_);
  int n = 0;
  cuda_check(cudaMemcpy(&n, c + kNMerges, sizeof n, cudaMemcpyDeviceToHost), "sink merge count");
  std::vector<SinkMergeEvent> out(std::size_t(std::min(n, kMaxSinks)));
  if (!out.empty())
    cuda_check(cudaMemcpy(out.data(), merges_, out.size() * sizeof(SinkMergeEvent),
                          cudaMemcpyDeviceToHost),
               "sink merges");
  cuda_check(cudaMemset(c + kNMerges, 0, sizeof(int)), "sink merge count");
  return out;
}

}  // namespace mpsph
