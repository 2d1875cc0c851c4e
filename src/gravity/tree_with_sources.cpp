#include "gravity/tree_with_sources.hpp"

#include <vector>

#include "core/no_cuda.hpp"

namespace mpsph {

namespace {

class CpuTreeWithSources final : public TreeWithSources {
 public:
  const char* name() const override { return "cpu"; }
  OctreeView build(const ParticleStore& s, const GravityParams& p, const Vec3d& cube_lo,
                   double cube_size, bool, TreeUpdate update) override {
    const std::size_t n = s.size();
    eps_.resize(n);
    for (std::size_t i = 0; i < n; ++i) eps_[i] = float(p.softening[s.type[i]]);
    if (update != TreeUpdate::Refit ||
        !tree_.refit(s.pos.data(), s.mass.data(), eps_.data(), n, p.leaf_size))
      tree_.build(s.pos.data(), s.mass.data(), eps_.data(), n, p.leaf_size, cube_lo, cube_size);
    return tree_.view();
  }
  bool walks_subsets() const override { return true; }
  TreeWalkStats walk(ParticleStore& s, const GravityParams& p, double G, const double* acc_old,
                     const OctreeView* sources, int n_sources, const uint8_t* active) override {
    TreeWalkParams wp;
    wp.opening = opening_params(p);
    wp.group_size = p.group_size;
    return tree_gravity(tree_.view(), wp, G, acc_old, s.acc_grav.data(), s.pot.data(), active,
                        sources, n_sources);
  }

 private:
  Octree tree_;
  std::vector<float> eps_;
};

}  // namespace

std::unique_ptr<TreeWithSources> make_cpu_tree_with_sources() {
  return std::make_unique<CpuTreeWithSources>();
}

#ifndef MPSPH_HAVE_CUDA
std::unique_ptr<TreeWithSources> make_gpu_tree_with_sources() {
  throw_built_without_cuda();
}
std::unique_ptr<TreeWithSources> make_resident_gpu_tree_with_sources(DeviceParticles&) {
  throw_built_without_cuda();
}
#endif

}  // namespace mpsph
