// The GPU TreeWithSources (tree_with_sources.hpp): GpuGravity on a device copy of the particles;
// the tree comes to the host for the caller's selection of locally essential trees, the source
// trees go to the device for the walk.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_particles.hpp"
#include "core/error.hpp"
#include "gravity/gravity_gpu.hpp"
#include "gravity/tree_with_sources.hpp"

namespace mpsph {

namespace {

// The source trees as one forest: nodes and particles concatenated, indices shifted.
SourceForest forest_of(const OctreeView* sources, int n_sources) {
  SourceForest f;
  for (int k = 0; k < n_sources; ++k) {
    const OctreeView& t = sources[k];
    if (t.n_nodes == 0) continue;
    const int32_t node_base = int32_t(f.nodes.size());
    const int32_t part_base = int32_t(f.pos.size());
    f.roots.push_back(node_base);
    std::vector<int> depth(std::size_t(t.n_nodes), 0);
    for (int32_t i = 0; i < t.n_nodes; ++i) {
      OctreeNode n = t.nodes[i];
      for (int32_t c = n.child_begin; c < n.child_begin + n.n_child; ++c) depth[c] = depth[i] + 1;
      f.generations = std::max(f.generations, depth[i] + 1);
      if (n.n_child > 0) n.child_begin += node_base;
      n.begin += part_base;
      n.end += part_base;
      f.nodes.push_back(n);
    }
    const TreeParticles& p = t.particles;
    f.pos.insert(f.pos.end(), p.pos, p.pos + p.n);
    f.mass.insert(f.mass.end(), p.mass, p.mass + p.n);
    f.eps.insert(f.eps.end(), p.eps, p.eps + p.n);
  }
  return f;
}

// The tree of a device-resident rank: `local` is the particles; nothing is copied to the device.
class ResidentGpuTreeWithSources final : public TreeWithSources {
 public:
  explicit ResidentGpuTreeWithSources(DeviceParticles& local) : local_(local) {}
  const char* name() const override { return "gpu (device-resident)"; }
  OctreeView build(const ParticleStore& s, const GravityParams& p, const Vec3d& cube_lo,
                   double cube_size, bool relative, TreeUpdate) override {
    const std::size_t n = local_.size();
    if (s.size() != n)
      throw Error("gravity: the host store of a device-resident rank holds " +
                  std::to_string(s.size()) + " particles, the device " + std::to_string(n));
    gravity_.build_in_cube(local_.view(), p, relative, cube_lo, cube_size);
    gravity_.download_tree(nodes_, order_);
    pos_.resize(n);
    mass_.resize(n);
    eps_.resize(n);
    const std::ptrdiff_t n_signed = std::ptrdiff_t(n);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n_signed; ++k) {
      const uint32_t i = order_[std::size_t(k)];
      pos_[k] = s.pos[i];
      mass_[k] = s.mass[i];
      eps_[k] = float(p.softening[s.type[i]]);
    }
    return OctreeView{nodes_.data(), int32_t(nodes_.size()),
                      TreeParticles{pos_.data(), mass_.data(), eps_.data(), int32_t(n)},
                      order_.data()};
  }
  bool walks_subsets() const override {
    return false;
  }
  TreeWalkStats walk(ParticleStore&, const GravityParams& p, double G, const double*,
                     const OctreeView* sources, int n_sources, const uint8_t* active) override {
    if (active)
      throw Error("gravity: the device-resident ranks walk every particle (global time steps)");
    return gravity_.walk_with_sources(local_.view(), p, G, forest_of(sources, n_sources));
  }

 private:
  DeviceParticles& local_;
  GpuGravity gravity_;
  std::vector<OctreeNode> nodes_;
  std::vector<uint32_t> order_;
  std::vector<Vec3d> pos_;
  std::vector<double> mass_;
  std::vector<float> eps_;
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
      return stats;
    }
    acc_all_.resize(n);
    pot_all_.resize(n);
    copy_to_host(acc_all_, v.acc_grav, n);
    copy_to_host(pot_all_, v.pot, n);
    for (std::size_t i = 0; i < n; ++i)
      if (active[i]) s.acc_grav[i] = acc_all_[i], s.pot[i] = pot_all_[i];
    return stats;
  }

 private:
  DeviceParticles d_;
  ResidentGpuTreeWithSources on_device_{d_};
  std::vector<Vec3d> acc_all_;  // the walk's values of every particle (block steps)
  std::vector<double> pot_all_;
  std::size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<TreeWithSources> make_gpu_tree_with_sources() {
  return std::make_unique<GpuTreeWithSources>();
}

std::unique_ptr<TreeWithSources> make_resident_gpu_tree_with_sources(DeviceParticles& local) {
  return std::make_unique<ResidentGpuTreeWithSources>(local);
}

}  // namespace mpsph
