#include "sph/sph_passes.hpp"

#include "core/active_set.hpp"
#include "core/no_cuda.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/smoothing_length.hpp"

namespace mpsph {

namespace {

ActiveSet active_set(const std::vector<uint32_t>& index) {
  ActiveSet a;
  a.index = index.data();
  a.n = a.n_gas = index.size();
  return a;
}

class CpuSphPasses final : public SphPasses {
 public:
  const char* name() const override { return "cpu"; }
  bool sums_in_store_order() const override { return true; }
  void smoothing_lengths(ParticleStore& s, const Box& box, const SphParams& p,
                         const std::vector<uint32_t>& active, std::vector<double>& next) override {
    SphNeighbours nb;
    compute_smoothing_lengths(s, box, p, nb, active_set(active), &next);
  }
  void density(ParticleStore& s, const Box& box, const SphParams& p, const EosParams& eos,
               const std::vector<uint32_t>& active) override {
    nb_.build_tree(s, box, 0.0);
    compute_density(s, box, p, nb_, active_set(active));
    prepare_force(s, eos, p, active_set(active));
  }
  void forces(ParticleStore& s, const Box& box, const SphParams& p,
              const std::vector<uint32_t>& active) override {
    compute_sph_forces(s, box, p, nb_, active_set(active));
  }
  const SphNeighbours* pair_lists() const override { return &nb_; }

 private:
  SphNeighbours nb_;
};

}  // namespace

std::unique_ptr<SphPasses> make_cpu_sph_passes() {
  return std::make_unique<CpuSphPasses>();
}

#ifndef MPSPH_HAVE_CUDA
std::unique_ptr<SphPasses> make_gpu_sph_passes() {
  throw_built_without_cuda();
}
#endif

}  // namespace mpsph
