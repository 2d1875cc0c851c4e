#include "sph/force.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/error.hpp"
#include "sph/eos_kern.hpp"
#include "sph/force_kern.hpp"

namespace mpsph {

namespace {

// One particle's pairs, kept per thread, as structure of arrays of `stride` entries: the inputs
// of force_pair (rows 0-11: dx, dv, r^2 and particle j's h, rho, P, c, f) and its outputs (rows
// 0-4: acc, du/dt, mu).
struct PairBuffers {
  std::size_t stride = 0;
  std::vector<float> in, out;

  void resize(std::size_t n) {
    if (stride >= n) return;
    stride = 2 * n;
    in.resize(12 * stride);
    out.resize(5 * stride);
  }
};

// force_pair for pairs [0, n): a loop without a reduction, which GCC vectorises where it may
// mask the viscosity's branch (AVX-512). Inputs and outputs do not overlap (restrict). The energy
// equation's choice is a template argument, so that the loop holds no select on a scalar flag
// (which GCC 12 does not vectorise).
template <bool kOwnPressure>
[[gnu::always_inline]] inline void force_pairs_loop(const float* __restrict in,
                                                    float* __restrict out, std::size_t stride,
                                                    std::size_t n, ForceParticle pi,
                                                    PairForceParams vp) {
  vp.energy_own_pressure = kOwnPressure;
  for (std::size_t m = 0; m < n; ++m) {
    const float* c = in + m;
    const PairSep s{{c[0], c[stride], c[2 * stride]},
                    {c[3 * stride], c[4 * stride], c[5 * stride]},
                    c[6 * stride]};
    const ForceParticle pj{c[7 * stride], c[8 * stride], c[9 * stride], c[10 * stride],
                           c[11 * stride]};
    const ForcePair f = force_pair(s, pi, pj, vp);
    float* o = out + m;
    o[0] = f.acc.x, o[stride] = f.acc.y, o[2 * stride] = f.acc.z, o[3 * stride] = f.dudt;
    o[4 * stride] = f.mu;
  }
}

[[gnu::always_inline]] inline void force_pairs_body(const float* in, float* out, std::size_t stride,
                                                    std::size_t n, ForceParticle pi,
                                                    PairForceParams vp) {
  if (vp.energy_own_pressure)
    force_pairs_loop<true>(in, out, stride, n, pi, vp);
  else
    force_pairs_loop<false>(in, out, stride, n, pi, vp);
}

// The loop compiled for the baseline ISA and for AVX-512, picked at run time. Both give the same
// bits: IEEE sqrt and division are exact in any width, the branch is a select per lane, and this
// file is compiled with -ffp-contract=off so that no multiply and add are fused (CMakeLists.txt).
void force_pairs_base(PairBuffers& b, std::size_t n, const ForceParticle& pi,
                      const PairForceParams& vp) {
  force_pairs_body(b.in.data(), b.out.data(), b.stride, n, pi, vp);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MPSPH_FORCE_AVX512 1
__attribute__((target("avx512f"))) void force_pairs_avx512(PairBuffers& b, std::size_t n,
                                                           const ForceParticle& pi,
                                                           const PairForceParams& vp) {
  force_pairs_body(b.in.data(), b.out.data(), b.stride, n, pi, vp);
}
#endif

}  // namespace

void prepare_force(ParticleStore& store, const EosParams& eos, const SphParams& params,
                   const ActiveSet& active) {
  const ParticleView v = store.view();
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
  const float eps_prime = float(params.balsara_eps);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = active[std::size_t(k)];
    const EosState e = apply_eos(eos, v, i);
    v.balsara[i] =
        params.balsara ? balsara_factor(v.divv[i], v.curlv[i], e.csound, v.h[i], eps_prime) : 1.f;
  }
}

void compute_sph_forces(ParticleStore& store, const Box& box, const SphParams& params,
                        SphNeighbours& nb, const ActiveSet& active) {
  const ParticleView v = store.view();
  if (!nb.has_pairs() || nb.n_gas() != v.n_gas)
    throw Error("sph: forces requested without the pair lists of this step for " +
                std::to_string(v.n_gas) + " gas particles (compute_density builds them)");
  const PairForceParams vp = pair_force_params(params);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(active.gas_count(v.n_gas));
  const bool avx512 = use_avx512_copies();
#pragma omp parallel
  {
    PairBuffers b;
#pragma omp for schedule(dynamic, 256)
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      const std::size_t i = active[std::size_t(k)];
      const ForceParticle pi = force_particle(v, i);
      // The pairs' inputs, then force_pair for all of them, then the sums in list order.
      const uint32_t* list = nb.pairs_begin(i);
      const std::size_t n_j = std::size_t(nb.pairs_end(i) - list);
      b.resize(n_j);
      for (std::size_t m = 0; m < n_j; ++m) {
        const uint32_t j = list[m];
        const PairSep s = pair_separation(v, i, j, box);
        const ForceParticle pj = force_particle(v, j);
        const float row[12] = {s.dx.x, s.dx.y, s.dx.z, s.dv.x,      s.dv.y,    s.dv.z,
                               s.r2,   pj.h,   pj.rho, pj.pressure, pj.csound, pj.balsara};
        for (std::size_t a = 0; a < 12; ++a) b.in[a * b.stride + m] = row[a];
      }
#ifdef MPSPH_FORCE_AVX512
      if (avx512)
        force_pairs_avx512(b, n_j, pi, vp);
      else
#endif
        force_pairs_base(b, n_j, pi, vp);
      ForceSums sums;
      for (std::size_t m = 0; m < n_j; ++m) {
        const float* o = b.out.data() + m;
        force_accumulate(
            sums, ForcePair{{o[0], o[b.stride], o[2 * b.stride]}, o[3 * b.stride], o[4 * b.stride]},
            v.mass[list[m]]);
      }
      v.acc[i] = sums.acc;
      v.dudt[i] = sums.dudt;
      v.vsig[i] = signal_velocity(pi.csound, sums.mu_max, vp);
    }
  }
}

}  // namespace mpsph
