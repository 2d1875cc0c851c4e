// The GPU TreeWithSources (tree_with_sources.hpp): GpuGravity on the rank's particles on the
// device (or a device copy of the host store's); the locally essential trees are selected there
// (gravity/let_gpu.hpp), the received ones go to the device for the walk.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "gravity/bounding_box_gpu.cuh"
#include "gravity/device_buffer.cuh"
#include "gravity/gravity_gpu.hpp"
#include "gravity/let_gpu.hpp"
#include "gravity/tree_with_sources.hpp"

namespace mpsph {

namespace {

// The source trees as one forest: nodes and particles concatenated, indices shifted (the copies
// on the OpenMP threads).
SourceForest forest_of(const OctreeView* sources, int n_sources) {
  SourceForest f;
  std::size_t nn = 0, np = 0;
  for (int k = 0; k < n_sources; ++k)
    if (sources[k].n_nodes > 0)
      nn += std::size_t(sources[k].n_nodes), np += std::size_t(sources[k].particles.n);
  f.nodes.resize(nn);
  f.pos.resize(np);
  f.mass.resize(np);
  f.eps.resize(np);
  std::size_t node_base = 0, part_base = 0;
  std::vector<int> depth;
  for (int k = 0; k < n_sources; ++k) {
    const OctreeView& t = sources[k];
    if (t.n_nodes == 0) continue;
    f.roots.push_back(int32_t(node_base));
    // Children follow their parent: one pass gives every node's generation.
    depth.assign(std::size_t(t.n_nodes), 0);
    for (int32_t i = 0; i < t.n_nodes; ++i) {
      const OctreeNode& n = t.nodes[i];
      for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) depth[c] = depth[i] + 1;
      f.generations = std::max(f.generations, depth[i] + 1);
    }
    const int32_t nb = int32_t(node_base), pb = int32_t(part_base);
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < t.n_nodes; ++i) {
      OctreeNode n = t.nodes[i];
      if (n.n_child > 0) n.child_begin += nb;
      n.begin += pb;
      n.end += pb;
      f.nodes[std::size_t(nb + i)] = n;
    }
    const TreeParticles& p = t.particles;
#pragma omp parallel for schedule(static)
    for (int32_t j = 0; j < p.n; ++j) {
      const std::size_t o = part_base + std::size_t(j);
      f.pos[o] = p.pos[j], f.mass[o] = p.mass[j], f.eps[o] = p.eps[j];
    }
    node_base += std::size_t(t.n_nodes);
    part_base += std::size_t(p.n);
  }
  return f;
}

// The tree of a device-resident rank: `local` is the particles; nothing is copied to the device,
// and the locally essential trees are selected there (gravity/let_gpu.hpp): the host sees the
// target boxes and the LETs only.
class ResidentGpuTreeWithSources final : public TreeWithSources {
 public:
  ResidentGpuTreeWithSources(DeviceParticles& local, DeviceScratch* scratch) : local_(local) {
    if (scratch) gravity_.set_scratch(scratch, true);
  }
  const char* name() const override { return "gpu (device-resident)"; }
  OctreeView build(const ParticleStore& s, const GravityParams& p, const Vec3d& cube_lo,
                   double cube_size, bool relative, TreeUpdate) override {
    const std::size_t n = local_.size();
    if (s.size() != n)
      throw Error("gravity: the host store of a device-resident rank holds " +
                  std::to_string(s.size()) + " particles, the device " + std::to_string(n));
    gravity_.build_in_cube(local_.view(), p, relative, cube_lo, cube_size);
    return OctreeView{nullptr, 0, TreeParticles{nullptr, nullptr, nullptr, 0}, nullptr};
  }
  void bounds(const ParticleStore&, Vec3d& lo, Vec3d& hi) const override {
    gpu::position_bounds(local_.view().pos, local_.size(), boxes_, lo, hi);
  }
  bool selects_lets() const override { return true; }
  std::vector<LetBox> let_target_boxes(int group_size, double G, std::size_t max_boxes) override {
    return let_.target_boxes(gravity_.device_tree(), group_size, G, max_boxes);
  }
  void append_let(const std::vector<LetBox>& boxes, const OpeningParams& op, bool relative,
                  std::vector<OctreeNode>& nodes, std::vector<LetParticle>& parts) override {
    let_.append_let(gravity_.device_tree(), boxes, op, relative, nodes, parts);
  }
  bool walks_subsets() const override { return false; }
  TreeWalkStats walk(ParticleStore&, const GravityParams& p, double G, const double*,
                     const OctreeView* sources, int n_sources, const uint8_t* active) override {
    if (active)
      throw Error("gravity: the device-resident ranks walk every particle (global time steps)");
    return gravity_.walk_with_sources(local_.view(), p, G, forest_of(sources, n_sources));
  }
  bool sends_lets_on_device() const override { return true; }
  std::size_t device_bytes() const override { return gravity_.device_bytes() + boxes_.bytes(); }
  std::size_t let_device_bytes() const override { return let_.device_bytes(); }
  LetCounts append_let_message(const std::vector<LetBox>& boxes, const OpeningParams& op,
                               bool relative, bool first) override {
    return let_.append_message(gravity_.device_tree(), boxes, op, relative, first);
  }
  const unsigned char* let_messages() const override { return let_.messages(); }
  int tree_generations() const override { return gravity_.device_tree().generations; }
  TreeWalkStats walk_device_sources(const GravityParams& p, double G, const unsigned char* received,
                                    const std::vector<std::size_t>& offsets,
                                    const std::vector<LetCounts>& counts,
                                    int generations) override {
    return gravity_.walk_with_device_sources(local_.view(), p, G,
                                             {received, offsets, counts, generations});
  }

 private:
  DeviceParticles& local_;
  GpuGravity gravity_;
  DeviceLet let_;
  mutable gpu::DeviceBuffer<gpu::Box6> boxes_;
};

// The host-staged tree: the particles copied to a device store of its own, on which the
// resident tree builds and walks; the walk's values come back to the host store.
class GpuTreeWithSources final : public TreeWithSources {
 public:
  const char* name() const override { return "gpu"; }
  // Always a build (no refit on the GPU ranks).
  OctreeView build(const ParticleStore& s, const GravityParams& p, const Vec3d& cube_lo,
                   double cube_size, bool relative, TreeUpdate update) override {
    const std::size_t n = s.size();
    if (n > capacity_) {
      capacity_ = n + n / 4;  // particles migrate between ranks: grow with room
      d_.reserve(capacity_);
    }
    d_.set_counts(n, s.n_gas());
    const ParticleView v = d_.view();
    copy_to_device(v.pos, s.pos, n);
    copy_to_device(v.mass, s.mass, n);
    copy_to_device(v.type, s.type, n);
    if (relative) copy_to_device(v.acc_grav, s.acc_grav, n);
    return on_device_.build(s, p, cube_lo, cube_size, relative, update);
  }
  bool walks_subsets() const override { return false; }
  // The LETs are selected on the device copy, as the resident ranks' (every particle a target
  // there, as the walk).
  bool selects_lets() const override { return true; }
  std::vector<LetBox> let_target_boxes(int group_size, double G, std::size_t max_boxes) override {
    return on_device_.let_target_boxes(group_size, G, max_boxes);
  }
  void append_let(const std::vector<LetBox>& boxes, const OpeningParams& op, bool relative,
                  std::vector<OctreeNode>& nodes, std::vector<LetParticle>& parts) override {
    on_device_.append_let(boxes, op, relative, nodes, parts);
  }
  // With `active` (block steps), every particle is still a target on the device (the walk with
  // sources takes no subset); only the active ones' values are kept.
  TreeWalkStats walk(ParticleStore& s, const GravityParams& p, double G, const double* acc_old,
                     const OctreeView* sources, int n_sources, const uint8_t* active) override {
    const TreeWalkStats stats = on_device_.walk(s, p, G, acc_old, sources, n_sources, nullptr);
    const ParticleView v = d_.view();
    const std::size_t n = s.size();
    if (!active) {
      copy_to_host(s.acc_grav, v.acc_grav, n);
      copy_to_host(s.pot, v.pot, n);
      copy_to_host(s.walk_cost, v.walk_cost, n);
      return stats;
    }
    acc_all_.resize(n);
    pot_all_.resize(n);
    cost_all_.resize(n);
    copy_to_host(acc_all_, v.acc_grav, n);
    copy_to_host(pot_all_, v.pot, n);
    copy_to_host(cost_all_, v.walk_cost, n);
    for (std::size_t i = 0; i < n; ++i)
      if (active[i])
        s.acc_grav[i] = acc_all_[i], s.pot[i] = pot_all_[i], s.walk_cost[i] = cost_all_[i];
    return stats;
  }

 private:
  DeviceParticles d_;
  ResidentGpuTreeWithSources on_device_{d_, nullptr};
  std::vector<Vec3d> acc_all_;  // the walk's values of every particle (block steps)
  std::vector<double> pot_all_;
  std::vector<uint32_t> cost_all_;
  std::size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<TreeWithSources> make_gpu_tree_with_sources() {
  return std::make_unique<GpuTreeWithSources>();
}

std::unique_ptr<TreeWithSources> make_resident_gpu_tree_with_sources(DeviceParticles& local,
                                                                     DeviceScratch* scratch) {
  return std::make_unique<ResidentGpuTreeWithSources>(local, scratch);
}

}  // namespace mpsph
