#include "sph/density.hpp"

#include <cstddef>
#include <vector>

#include "core/cpu_features.hpp"
#include "sph/density_kern.hpp"

namespace mpsph {

namespace {

// One particle's pairs, kept per thread: separations, r^2, h_j, m_j and the kernel terms.
struct PairBuffers {
  std::vector<PairSep> sep;
  std::vector<float> r2, h, m, w, dwdr_over_r;

  void resize(std::size_t n) {
    if (sep.size() >= n) return;
    for (auto* v : {&r2, &h, &m, &w, &dwdr_over_r}) v->resize(n);
    sep.resize(n);
  }
};

// The kernel terms of n pairs (density_kernel_terms), a loop without a reduction that GCC
// vectorises where it may mask the kernel's branches (AVX-512).
[[gnu::always_inline]] inline void kernel_terms_body(const float* r2, const float* h_j, float h_i,
                                                     std::size_t n, float* w, float* dwdr_over_r) {
  for (std::size_t m = 0; m < n; ++m) {
    const DensityKernelTerms k = density_kernel_terms(r2[m], h_i, h_j[m]);
    w[m] = k.w;
    dwdr_over_r[m] = k.dwdr_over_r;
  }
}

// The loop compiled for the baseline ISA and for AVX-512, picked at run time. Both give the same
// bits: IEEE sqrt and division are exact in any width, the branches are selects per lane, and this
// file is compiled with -ffp-contract=off so that no multiply and add are fused (CMakeLists.txt).
void kernel_terms_base(const float* r2, const float* h_j, float h_i, std::size_t n, float* w,
                       float* dwdr_over_r) {
  kernel_terms_body(r2, h_j, h_i, n, w, dwdr_over_r);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MPSPH_DENSITY_AVX512 1
__attribute__((target("avx512f"))) void kernel_terms_avx512(const float* r2, const float* h_j,
                                                            float h_i, std::size_t n, float* w,
                                                            float* dwdr_over_r) {
  kernel_terms_body(r2, h_j, h_i, n, w, dwdr_over_r);
}
#endif

}  // namespace

void compute_density(ParticleStore& store, const Box& box, const SphParams& /*params*/,
                     SphNeighbours& nb, const ActiveSet& active) {
  nb.build_pairs(store, box, active);
  const ParticleView v = store.view();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
  const bool avx512 = use_avx512_copies();
#pragma omp parallel
  {
    PairBuffers b;
#pragma omp for schedule(dynamic, 256)
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      const std::size_t i = active[std::size_t(k)];
      const float h_i = v.h[i];
      // The pairs' geometry, then their kernel terms, then the sums in list order: the
      // operations of density_pair for each j in turn.
      const uint32_t* list = nb.pairs_begin(i);
      const std::size_t n_j = std::size_t(nb.pairs_end(i) - list);
      b.resize(n_j);
      for (std::size_t m = 0; m < n_j; ++m) {
        const uint32_t j = list[m];
        b.sep[m] = pair_separation(v, i, j, box);
        b.r2[m] = b.sep[m].r2;
        b.h[m] = v.h[j];
        b.m[m] = float(v.mass[j]);
      }
#ifdef MPSPH_DENSITY_AVX512
      if (avx512)
        kernel_terms_avx512(b.r2.data(), b.h.data(), h_i, n_j, b.w.data(), b.dwdr_over_r.data());
      else
#endif
        kernel_terms_base(b.r2.data(), b.h.data(), h_i, n_j, b.w.data(), b.dwdr_over_r.data());
      DensitySums sums;
      density_self(sums, float(v.mass[i]), h_i);
      for (std::size_t m = 0; m < n_j; ++m)
        density_pair_add(sums, b.sep[m], b.m[m], DensityKernelTerms{b.w[m], b.dwdr_over_r[m]});
      const DensityResult r = density_end(sums);
      v.rho[i] = r.rho;
      v.divv[i] = r.divv;
      v.curlv[i] = r.curlv;
    }
  }
}

}  // namespace mpsph
