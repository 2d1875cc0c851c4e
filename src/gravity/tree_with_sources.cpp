#include "gravity/tree_with_sources.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/no_cuda.hpp"
#include "core/position_bounds.hpp"

namespace mpsph {

void TreeWithSources::bounds(const ParticleStore& s, Vec3d& lo, Vec3d& hi) const {
  const PositionBounds b = position_bounds(s.pos.data(), s.size());
  lo = b.lo, hi = b.hi;
}

std::vector<LetBox> TreeWithSources::let_target_boxes(int, double, std::size_t) {
  throw Error(std::string("gravity: the ") + name() + " tree does not select its LETs itself");
}

void TreeWithSources::append_let(const std::vector<LetBox>&, const OpeningParams&, bool,
                                 std::vector<OctreeNode>&, std::vector<LetParticle>&) {
  throw Error(std::string("gravity: the ") + name() + " tree does not select its LETs itself");
}

LetCounts TreeWithSources::append_let_message(const std::vector<LetBox>&, const OpeningParams&,
                                              bool, bool) {
  throw Error(std::string("gravity: the ") + name() + " tree does not send its LETs GPU to GPU");
}

const unsigned char* TreeWithSources::let_messages() const {
  throw Error(std::string("gravity: the ") + name() + " tree does not send its LETs GPU to GPU");
}

int TreeWithSources::tree_generations() const {
  throw Error(std::string("gravity: the ") + name() + " tree does not send its LETs GPU to GPU");
}

TreeWalkStats TreeWithSources::walk_device_sources(const GravityParams&, double,
                                                   const unsigned char*,
                                                   const std::vector<std::size_t>&,
                                                   const std::vector<LetCounts>&, int) {
  throw Error(std::string("gravity: the ") + name() + " tree does not send its LETs GPU to GPU");
}

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
                        sources, n_sources, s.walk_cost.data());
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
std::unique_ptr<TreeWithSources> make_resident_gpu_tree_with_sources(DeviceParticles&,
                                                                     DeviceScratch*) {
  throw_built_without_cuda();
}
#endif

}  // namespace mpsph
