// DeviceLet (let_gpu.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "gravity/bounding_box_gpu.cuh"
#include "gravity/device_buffer.cuh"
#include "gravity/let_gpu.hpp"

namespace mpsph {

namespace {

constexpr unsigned kThreads = 256;
static_assert(kThreads == unsigned(gpu::kBoxThreads), "the block reductions' width");

// Slices per box for box_values_kernel: at least kSliceParticles particles each (a block's
// worth), at most kMaxSlices (the grid stays boxes x 64 blocks however large the largest box).
constexpr int kSliceParticles = 4096, kMaxSlices = 64;
int box_slices(int largest) {
  return std::clamp((largest + kSliceParticles - 1) / kSliceParticles, 1, kMaxSlices);
}
// One thread: the box nodes of distributed_gravity.cpp's box_nodes, with the max-heap by node size
// in shared memory (max_boxes + 8 entries of size and node: the sizes are read once, when pushed).
// Writes the count to n_out[0] and the largest box node's particle count to n_out[1].
struct HeapEntry {
  float size;
  int32_t node;
};

__global__ void box_nodes_kernel(const OctreeNode* nodes, int group_size, int max_boxes,
                                 int32_t* out, int* n_out) {
  extern __shared__ HeapEntry heap[];
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  auto splittable = [&](int32_t i) {
    return nodes[i].n_child > 0 && nodes[i].end - nodes[i].begin > group_size;
  };
  int h = 0, n = 0;
  auto push = [&](int32_t v) {
    int k = h++;
    heap[k] = HeapEntry{nodes[v].size, v};
    while (k > 0 && heap[k].size > heap[(k - 1) / 2].size) {
      const int p = (k - 1) / 2;
      const HeapEntry t = heap[p];
      heap[p] = heap[k], heap[k] = t, k = p;
    }
  };
  auto pop = [&]() {
    heap[0] = heap[--h];
    int k = 0;
    for (;;) {
      const int l = 2 * k + 1, r = l + 1;
      int m = k;
      if (l < h && heap[l].size > heap[m].size) m = l;
      if (r < h && heap[r].size > heap[m].size) m = r;
      if (m == k) break;
      const HeapEntry t = heap[m];
      heap[m] = heap[k], heap[k] = t, k = m;
    }
  };
  int count = 1;
  if (splittable(0))
    push(0);
  else
    out[n++] = 0;
  while (h > 0) {
    const OctreeNode& top = nodes[heap[0].node];
    if (count + top.n_child - 1 > max_boxes) break;
    const int32_t c0 = top.child_begin, nc = top.n_child;
    pop();
    count += nc - 1;
    for (int32_t c = c0; c < c0 + nc; ++c) {
      if (splittable(c))
        push(c);
      else
        out[n++] = c;
    }
  }
  for (int k = 0; k < h; ++k) out[n++] = heap[k].node;
  int largest = 0;
  for (int k = 0; k < n; ++k) largest = max(largest, nodes[out[k]].end - nodes[out[k]].begin);
  n_out[0] = n;
  n_out[1] = largest;
}

// The values of one box node's particles, or of a slice of them: their bounding box, largest
// softening, smallest non-zero float(|a_old| / G) (infinity: none) and whether some particle has
// none (distributed_gravity.cpp target_boxes).
struct BoxValues {
  gpu::Box6 b;
  float eps_max, a_nz;
  int zero;
};

__device__ BoxValues no_values() {
  return {gpu::detail::empty_box(), 0.0f, std::numeric_limits<float>::infinity(), 0};
}

__device__ void merge_values(BoxValues& v, const BoxValues& w) {
  gpu::detail::box_merge(v.b, w.b);
  v.eps_max = fmaxf(v.eps_max, w.eps_max);
  v.a_nz = fminf(v.a_nz, w.a_nz);
  v.zero = v.zero > w.zero ? v.zero : w.zero;
}

// The block's values merged (valid in thread 0).
__device__ BoxValues block_values(BoxValues v) {
  using ReduceF = cub::BlockReduce<float, kThreads>;
  using ReduceI = cub::BlockReduce<int, kThreads>;
  __shared__ typename ReduceF::TempStorage tf;
  __shared__ typename ReduceI::TempStorage ti;
  v.eps_max = ReduceF(tf).Reduce(v.eps_max, [](float a, float c) { return fmaxf(a, c); });
  __syncthreads();
  v.a_nz = ReduceF(tf).Reduce(v.a_nz, [](float a, float c) { return fminf(a, c); });
  v.zero = ReduceI(ti).Reduce(v.zero, [](int a, int c) { return a > c ? a : c; });
  v.b = gpu::detail::box_block_reduce(v.b);
  return v;
}

// Box nodes hold from a few particles to millions (the node splits go by size, not count: the
// dense centre of a galaxy stays in few boxes), so each box's particles are cut into `slices`
// blocks' worth (grid: boxes x slices) and merged by merge_box_values_kernel: one block per box
// read a galaxy's centre alone (12 ms of a 2e7-particle disk's 13 ms step part on an H200).
__global__ void box_values_kernel(const OctreeNode* nodes, TreeParticles p, const double* acc_old,
                                  double G, const int32_t* box_nodes, int slices,
                                  BoxValues* partial) {
  const OctreeNode& n = nodes[box_nodes[blockIdx.x]];
  const int64_t count = n.end - n.begin;
  const int32_t s0 = n.begin + int32_t(count * blockIdx.y / slices);
  const int32_t s1 = n.begin + int32_t(count * (blockIdx.y + 1) / slices);
  BoxValues v = no_values();
  for (int32_t i = s0 + int32_t(threadIdx.x); i < s1; i += int32_t(blockDim.x)) {
    const Vec3d x = p.pos[i];
    const float a = acc_old ? float(acc_old[i] / G) : 0.0f;
    merge_values(v, {{{x.x, x.y, x.z}, {x.x, x.y, x.z}},
                     p.eps[i],
                     a > 0.0f ? a : std::numeric_limits<float>::infinity(),
                     a > 0.0f ? 0 : 1});
  }
  v = block_values(v);
  if (threadIdx.x == 0) partial[std::size_t(blockIdx.x) * slices + blockIdx.y] = v;
}

// One block per box: its slices' values merged into its LetBox.
__global__ void merge_box_values_kernel(const BoxValues* partial, int slices, LetBox* out) {
  BoxValues v = no_values();
  for (int k = int(threadIdx.x); k < slices; k += int(blockDim.x))
    merge_values(v, partial[std::size_t(blockIdx.x) * slices + k]);
  v = block_values(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = LetBox{{v.b.lo[0], v.b.lo[1], v.b.lo[2]},
                             {v.b.hi[0], v.b.hi[1], v.b.hi[2]},
                             v.eps_max,
                             isfinite(v.a_nz) ? v.a_nz : 0.0f,
                             uint8_t(v.zero)};
}

__global__ void parent_kernel(const OctreeNode* nodes, int32_t n_nodes, int32_t* parent) {
  const int32_t i = int32_t(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n_nodes) return;
  if (i == 0) parent[0] = -1;
  for (int32_t c = nodes[i].child_begin; c < nodes[i].child_begin + nodes[i].n_child; ++c)
    parent[c] = i;
}

// One level of the boxes' walks, all boxes at once: thread k tests the pair (box, node) in[k]; a
// node the box does not accept gets opened = 1 and its children go to the next level's pairs (one
// atomic add per warp). Pairs past `capacity` are counted but not written (the caller grows the
// buffer and runs the level again: the flags are only ever set to 1).
struct WalkPair {
  int32_t node;
  int32_t box;
};

__global__ void open_level_kernel(const OctreeNode* nodes, const LetBox* boxes, OpeningParams op,
                                  bool relative, const WalkPair* in, uint32_t n_in, WalkPair* out,
                                  uint32_t capacity, uint32_t* n_out, uint8_t* opened) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  int32_t ni = -1, box = 0, c0 = 0, nc = 0;
  if (k < n_in) {
    ni = in[k].node, box = in[k].box;
    const OctreeNode& n = nodes[ni];
    if (!let_node_accepted(boxes[box], n, op, relative)) {
      opened[ni] = 1;
      c0 = n.child_begin, nc = n.n_child;
    }
  }
  // The warp's children: an inclusive scan of the counts by shuffles, one atomic add by lane 31.
  const unsigned lane = threadIdx.x & 31u;
  int incl = nc;
  for (int d = 1; d < 32; d *= 2) {
    const int v = __shfl_up_sync(0xffffffffu, incl, d);
    if (int(lane) >= d) incl += v;
  }
  uint32_t base = 0;
  if (lane == 31u && incl > 0) base = atomicAdd(n_out, uint32_t(incl));
  base = __shfl_sync(0xffffffffu, base, 31);
  const uint32_t first = base + uint32_t(incl - nc);
  for (int32_t c = 0; c < nc; ++c)
    if (first + uint32_t(c) < capacity) out[first + uint32_t(c)] = WalkPair{c0 + c, box};
}

__global__ void roots_kernel(uint32_t n_boxes, WalkPair* out) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n_boxes) out[k] = WalkPair{0, int32_t(k)};
}

// visited[i]: the root and the children of opened nodes; leaf_count[i]: the particles an opened
// leaf sends.
__global__ void visit_kernel(const OctreeNode* nodes, int32_t n_nodes, const int32_t* parent,
                             const uint8_t* opened, uint32_t* visited, uint32_t* leaf_count) {
  const int32_t i = int32_t(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n_nodes) return;
  const bool v = i == 0 || opened[parent[i]];
  visited[i] = v ? 1u : 0u;
  leaf_count[i] =
      v && opened[i] && nodes[i].n_child == 0 ? uint32_t(nodes[i].end - nodes[i].begin) : 0u;
}

// The LET: visited node i at index[i], with its links relative to the LET; an opened leaf's
// particles at particle_index[i].
__global__ void write_kernel(const OctreeNode* nodes, TreeParticles p, int32_t n_nodes,
                             const uint8_t* opened, const uint32_t* visited, const uint32_t* index,
                             const uint32_t* particle_index, OctreeNode* out,
                             LetParticle* out_parts) {
  const int32_t i = int32_t(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n_nodes || !visited[i]) return;
  const OctreeNode& n = nodes[i];
  OctreeNode o = n;
  o.begin = o.end = 0;
  o.child_begin = 0;
  o.n_child = 0;
  if (opened[i]) {
    if (n.n_child > 0) {
      o.child_begin = int32_t(index[n.child_begin]);
      o.n_child = n.n_child;
    } else {
      o.begin = int32_t(particle_index[i]);
      o.end = o.begin + (n.end - n.begin);
      for (int32_t j = n.begin; j < n.end; ++j)
        out_parts[o.begin + (j - n.begin)] = LetParticle{p.pos[j], p.mass[j], p.eps[j]};
    }
  }
  out[index[i]] = o;
}

}  // namespace

struct DeviceLet::Scratch {
  gpu::DeviceBuffer<int32_t> box_nodes, parent;
  gpu::DeviceBuffer<int> count;
  gpu::DeviceBuffer<WalkPair> pairs[2];
  gpu::DeviceBuffer<uint32_t> n_pairs;
  gpu::DeviceBuffer<LetBox> boxes;
  gpu::DeviceBuffer<BoxValues> box_values;
  gpu::DeviceBuffer<uint8_t> opened;
  gpu::DeviceBuffer<uint32_t> visited, leaf_count, index, particle_index;
  gpu::DeviceBuffer<OctreeNode> out;
  gpu::DeviceBuffer<LetParticle> out_parts;
  gpu::DeviceBuffer<unsigned char> temp;
  gpu::DeviceBuffer<unsigned char> message;  // append_message's LETs
  std::size_t message_bytes = 0;

  LetCounts select(const GpuGravity::DeviceTree& t, const std::vector<LetBox>& boxes,
                   const OpeningParams& op, bool relative);
  void write(const GpuGravity::DeviceTree& t, OctreeNode* nodes, LetParticle* parts);

  // out[i] = sum of in[0, i) for i <= n (n + 1 entries; in has n + 1 entries, the last 0).
  void exclusive_scan(const uint32_t* in, uint32_t* out, std::size_t n) {
    std::size_t bytes = 0;
    cuda_check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, int64_t(n)),
               "LET scan (size)");
    temp.reserve(std::max<std::size_t>(bytes, 1), "LET scan scratch");
    cuda_check(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, int64_t(n)), "LET scan");
  }
};

DeviceLet::DeviceLet() : s_(std::make_unique<Scratch>()) {}
DeviceLet::~DeviceLet() = default;

std::vector<LetBox> DeviceLet::target_boxes(const GpuGravity::DeviceTree& t, int group_size,
                                            double G, std::size_t max_boxes) {
  if (t.n_nodes == 0) return {};
  Scratch& s = *s_;
  s.box_nodes.reserve(max_boxes + 8, "LET box nodes");
  s.count.reserve(2, "LET box count");
  box_nodes_kernel<<<1, 1, (max_boxes + 8) * sizeof(HeapEntry)>>>(
      t.nodes, std::max(1, group_size), int(max_boxes), s.box_nodes.get(), s.count.get());
  cuda_check_launch("box_nodes_kernel");
  int counts[2] = {0, 0};  // boxes, particles of the largest
  cuda_check(cudaMemcpy(counts, s.count.get(), sizeof(counts), cudaMemcpyDeviceToHost),
             "LET box count");
  const int n_boxes = counts[0];
  if (n_boxes == 0) return {};
  const int slices = box_slices(counts[1]);
  s.box_values.reserve(std::size_t(n_boxes) * std::size_t(slices), "LET target box slices");
  s.boxes.reserve(std::size_t(n_boxes), "LET target boxes");
  box_values_kernel<<<dim3(unsigned(n_boxes), unsigned(slices)), kThreads>>>(
      t.nodes, t.particles, t.acc_old, G, s.box_nodes.get(), slices, s.box_values.get());
  cuda_check_launch("box_values_kernel");
  merge_box_values_kernel<<<unsigned(n_boxes), kThreads>>>(s.box_values.get(), slices,
                                                           s.boxes.get());
  cuda_check_launch("merge_box_values_kernel");
  std::vector<LetBox> out(static_cast<std::size_t>(n_boxes));
  copy_to_host(out, s.boxes.get(), out.size());
  return out;
}

// The selection of append_let and append_message: the opened and visited nodes and their
// indices in the LET; returns the LET's node and particle counts (write() then writes it).
LetCounts DeviceLet::Scratch::select(const GpuGravity::DeviceTree& t,
                                     const std::vector<LetBox>& boxes, const OpeningParams& op,
                                     bool relative) {
  Scratch& s = *this;
  const std::size_t n = std::size_t(t.n_nodes);
  s.parent.reserve(n, "LET parents");
  s.opened.reserve(n, "LET opened nodes");
  s.visited.reserve(n + 1, "LET visited nodes");
  s.leaf_count.reserve(n + 1, "LET leaf counts");
  s.index.reserve(n + 1, "LET node index");
  s.particle_index.reserve(n + 1, "LET particle index");
  s.boxes.reserve(boxes.size(), "LET boxes");
  copy_to_device(s.boxes.get(), boxes, boxes.size());
  cuda_check(cudaMemset(s.opened.get(), 0, n), "LET opened nodes");
  cuda_check(cudaMemset(s.visited.get() + n, 0, sizeof(uint32_t)), "LET visited nodes");
  cuda_check(cudaMemset(s.leaf_count.get() + n, 0, sizeof(uint32_t)), "LET leaf counts");
  const unsigned node_blocks = cuda_blocks(n, kThreads);
  parent_kernel<<<node_blocks, kThreads>>>(t.nodes, t.n_nodes, s.parent.get());
  cuda_check_launch("parent_kernel");
  // The boxes' walks level by level: the pairs (box, node) of one level test in parallel, and the
  // rejected nodes' children form the next level's pairs (the set of opened nodes is that of one
  // walk per box: a box tests a node exactly when it rejected all its ancestors).
  s.n_pairs.reserve(1, "LET walk pair count");
  uint32_t n_level = uint32_t(boxes.size());
  std::size_t cap = std::max<std::size_t>(s.pairs[0].capacity(), 8 * boxes.size());
  s.pairs[0].reserve(cap, "LET walk pairs", 0);
  s.pairs[1].reserve(cap, "LET walk pairs", 0);
  roots_kernel<<<cuda_blocks(n_level, kThreads), kThreads>>>(n_level, s.pairs[0].get());
  cuda_check_launch("roots_kernel");
  int cur = 0;
  while (n_level > 0) {
    uint32_t n_next = 0;
    for (;;) {
      cuda_check(cudaMemset(s.n_pairs.get(), 0, sizeof(uint32_t)), "LET walk pair count");
      open_level_kernel<<<cuda_blocks(n_level, kThreads), kThreads>>>(
          t.nodes, s.boxes.get(), op, relative, s.pairs[cur].get(), n_level, s.pairs[1 - cur].get(),
          uint32_t(s.pairs[1 - cur].capacity()), s.n_pairs.get(), s.opened.get());
      cuda_check_launch("open_level_kernel");
      cuda_check(cudaMemcpy(&n_next, s.n_pairs.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost),
                 "LET walk pair count");
      if (n_next <= s.pairs[1 - cur].capacity()) break;
      s.pairs[1 - cur].reserve(std::size_t(n_next) + n_next / 4, "LET walk pairs");
    }
    cur = 1 - cur;
    n_level = n_next;
  }
  visit_kernel<<<node_blocks, kThreads>>>(t.nodes, t.n_nodes, s.parent.get(), s.opened.get(),
                                          s.visited.get(), s.leaf_count.get());
  cuda_check_launch("visit_kernel");
  s.exclusive_scan(s.visited.get(), s.index.get(), n + 1);
  s.exclusive_scan(s.leaf_count.get(), s.particle_index.get(), n + 1);
  uint32_t n_let = 0, n_parts = 0;
  cuda_check(cudaMemcpy(&n_let, s.index.get() + n, sizeof(uint32_t), cudaMemcpyDeviceToHost),
             "LET node count");
  cuda_check(
      cudaMemcpy(&n_parts, s.particle_index.get() + n, sizeof(uint32_t), cudaMemcpyDeviceToHost),
      "LET particle count");
  return LetCounts{n_let, n_parts};
}

void DeviceLet::Scratch::write(const GpuGravity::DeviceTree& t, OctreeNode* nodes,
                               LetParticle* parts) {
  write_kernel<<<cuda_blocks(std::size_t(t.n_nodes), kThreads), kThreads>>>(
      t.nodes, t.particles, t.n_nodes, opened.get(), visited.get(), index.get(),
      particle_index.get(), nodes, parts);
  cuda_check_launch("write_kernel");
}

void DeviceLet::append_let(const GpuGravity::DeviceTree& t, const std::vector<LetBox>& boxes,
                           const OpeningParams& op, bool relative, std::vector<OctreeNode>& nodes,
                           std::vector<LetParticle>& parts) {
  if (t.n_nodes == 0 || boxes.empty()) return;
  Scratch& s = *s_;
  const LetCounts c = s.select(t, boxes, op, relative);
  const std::size_t n_let = std::size_t(c.nodes), n_parts = std::size_t(c.particles);
  s.out.reserve(std::max<std::size_t>(n_let, 1), "LET nodes");
  s.out_parts.reserve(std::max<std::size_t>(n_parts, 1), "LET particles");
  s.write(t, s.out.get(), s.out_parts.get());
  const std::size_t node0 = nodes.size(), part0 = parts.size();
  nodes.resize(node0 + n_let);
  parts.resize(part0 + n_parts);
  if (n_let > 0)
    cuda_check(cudaMemcpy(nodes.data() + node0, s.out.get(), n_let * sizeof(OctreeNode),
                          cudaMemcpyDeviceToHost),
               "LET nodes");
  if (n_parts > 0)
    cuda_check(cudaMemcpy(parts.data() + part0, s.out_parts.get(), n_parts * sizeof(LetParticle),
                          cudaMemcpyDeviceToHost),
               "LET particles");
}

LetCounts DeviceLet::append_message(const GpuGravity::DeviceTree& t,
                                    const std::vector<LetBox>& boxes, const OpeningParams& op,
                                    bool relative, bool first) {
  Scratch& s = *s_;
  if (first) s.message_bytes = 0;
  if (t.n_nodes == 0 || boxes.empty()) return LetCounts{};
  const LetCounts c = s.select(t, boxes, op, relative);
  const std::size_t at = s.message_bytes, bytes = let_message_bytes(c);
  s.message.reserve(std::max<std::size_t>(at + bytes + (at + bytes) / 4, 1), "LET messages", at);
  unsigned char* base = s.message.get() + at;
  s.write(t, reinterpret_cast<OctreeNode*>(base),
          reinterpret_cast<LetParticle*>(base + std::size_t(c.nodes) * sizeof(OctreeNode)));
  s.message_bytes = at + bytes;
  return c;
}

std::size_t DeviceLet::device_bytes() const {
  const Scratch& s = *s_;
  return s.box_nodes.bytes() + s.parent.bytes() + s.count.bytes() + s.pairs[0].bytes() +
         s.pairs[1].bytes() + s.n_pairs.bytes() + s.boxes.bytes() + s.box_values.bytes() +
         s.opened.bytes() + s.visited.bytes() + s.leaf_count.bytes() + s.index.bytes() +
         s.particle_index.bytes() + s.out.bytes() + s.out_parts.bytes() + s.temp.bytes() +
         s.message.bytes();
}

const unsigned char* DeviceLet::messages() const {
  return s_->message.get();
}

}  // namespace mpsph
