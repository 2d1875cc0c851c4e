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
  return active_subset(index, index.size());
}

class CpuSphPasses final : public SphPasses {
 public:
  const char* name() const override { return "cpu"; }
  bool sums_in_store_order() const override { return true; }
  void smoothing_lengths(ParticleStore& s, const Box& box, const SphParams& p,
                         const std::vector<uint32_t>& active, std::vector<double>& next) override {
    compute_smoothing_lengths(s, box, p, h_nb_, active_set(active), &next);
  }
  void density(ParticleStore& s, const Box& box, const SphParams& p, const EosParams& eos,
               const std::vector<uint32_t>& active) override {
    nb_.build_tree(s, box, 0.0);
    if (cand_stride_ > 0) {
      nb_.set_candidates(cand_stride_, std::move(cand_), std::move(cand_h_));
      cand_stride_ = 0;
    }
    compute_density(s, box, p, nb_, active_set(active));
    prepare_force(s, eos, p, active_set(active));
  }
  void forces(ParticleStore& s, const Box& box, const SphParams& p,
              const std::vector<uint32_t>& active) override {
    compute_sph_forces(s, box, p, nb_, active_set(active));
  }
  const SphNeighbours* pair_lists() const override { return &nb_; }
  const SphNeighbours* h_search() const override { return &h_nb_; }
  void give_candidates(std::size_t stride, std::vector<uint32_t> index,
                       std::vector<float> covered_h) override {
    cand_stride_ = stride;
    cand_ = std::move(index);
    cand_h_ = std::move(covered_h);
  }

 private:
  SphNeighbours nb_;             // density and forces: the pairs
  SphNeighbours h_nb_;           // smoothing lengths (kept: its candidates and buffers)
  std::size_t cand_stride_ = 0;  // candidates for the next density(), if any
  std::vector<uint32_t> cand_;
  std::vector<float> cand_h_;
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
