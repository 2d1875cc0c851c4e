// GPU direct summation (GpuDirectGravity, direct_gravity_gpu) against the double-precision direct
// sum, for the uniform-softening fast path and the general path, with and without j-splitting.
#ifdef MPSPH_HAVE_CUDA

#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "gravity/gpu_gravity_test_support.hpp"
#include "gravity/gravity_gpu.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;
using test::acc_errors;
using test::Percentiles;
using test::pot_errors;

namespace {

constexpr double kEps = 0.01;

// Float pair terms (rsqrt: <= 2 ulp), float coordinates relative to the centre of mass (spacing
// 6e-8 |x|, i.e. ~1e-6 of a core pair separation), float sums over 512 j added in double: the
// typical relative error is ~1e-6, larger only where the pull from opposite sides cancels.
void check_against_reference(const char* name, const ParticleStore& s, const GravityParams& p) {
  DeviceParticles d;
  test::upload_gravity(d, s);
  const std::size_t n = s.size();
  std::vector<Vec3d> ref(n);
  std::vector<double> ref_pot(n);
  direct_gravity_double_gpu(d.view(), p, 1.0, 0, n, ref.data(), ref_pot.data());
  for (bool split : {false, true}) {
    GpuDirectGravity g;
    g.compute(d.view(), p, 1.0, split);
    ParticleStore out = s;
    test::download_gravity(d, out);
    const Percentiles ea = acc_errors(out.acc_grav, ref, n);
    const Percentiles ep = pot_errors(out.pot, ref_pot, n);
    // Newton's third law: the float pair terms are antisymmetric up to rounding.
    Vec3d mom{0, 0, 0};
    double scale = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      mom += s.mass[i] * out.acc_grav[i];
      scale += s.mass[i] * norm(out.acc_grav[i]);
    }
    std::printf(
        "GPU direct %s N=%zu %s (%d j-ranges): |da|/|a| median %.2e p99 %.2e max %.2e; "
        "|dphi|/|phi| median %.2e max %.2e; |sum m a|/sum m|a| %.1e\n",
        name, n, split ? "j-split" : "no split", g.last_splits(), ea.median, ea.p99, ea.max,
        ep.median, ep.max, norm(mom) / scale);
    CHECK(ea.median <= 2e-6);
    CHECK(ea.p99 <= 2e-5);
    CHECK(ep.max <= 1e-5);
    CHECK(norm(mom) / scale <= 1e-6);
    if (!split) CHECK(g.last_splits() == 1);
  }
}

}  // namespace

TEST_CASE("GPU direct kernel against the double-precision direct sum", "[gpu][gravity][direct]") {
  GravityParams p;
  p.softening.fill(kEps);
  SECTION("uniform Plummer softening (fast path), N not a multiple of the tile") {
    check_against_reference("uniform", make_plummer(20011, 4), p);
  }
  SECTION("six types with per-type softening (general path)") {
    ParticleStore s = make_plummer(12000, 8);
    for (std::size_t i = 0; i < s.size(); ++i) s.type[i] = uint8_t(i % 6);
    p.softening = {0.005, 0.01, 0.02, 0.04, 0.01, 0.005};
    check_against_reference("six types", s, p);
  }
  SECTION("spline softening") {
    p.kernel = SofteningKernel::Spline;
    p.softening.fill(0.02);
    check_against_reference("spline", make_plummer(12000, 6), p);
  }
  SECTION("zero softening (general path, self pair skipped by index)") {
    p.softening.fill(0.0);
    check_against_reference("eps 0", make_plummer(3000, 2), p);
  }
  SECTION("fewer particles than one block") {
    check_against_reference("small", make_plummer(300, 5), p);
  }
}

TEST_CASE("GPU direct: two particles, Newton with Plummer softening", "[gpu][gravity][direct]") {
  ParticleStore s = make_plummer(2, 3, 2.0);
  GravityParams p;
  p.softening.fill(0.1);
  DeviceParticles d;
  test::upload_gravity(d, s);
  direct_gravity_gpu(d.view(), p, 2.0, true);
  ParticleStore out = s;
  test::download_gravity(d, out);
  const Vec3d dx = s.pos[0] - s.pos[1];
  const double s2 = norm2(dx) + 0.01;
  // a_0 = -G m_1 dx / (r^2 + eps^2)^1.5, phi_0 = -G m_1 / sqrt(r^2 + eps^2); float pair term.
  const double f = 2.0 * s.mass[1] / (s2 * std::sqrt(s2));
  CHECK(out.acc_grav[0].x == Approx(-f * dx.x).epsilon(1e-6));
  CHECK(out.acc_grav[1].y == Approx(f * dx.y).epsilon(1e-6));
  // The uniform-softening path sums the self pair's -m/eps (here 24 times the pair term) in float
  // and removes it afterwards: a few float roundings of that sum, <= 4 * 6e-8 * 25 = 6e-6 of phi.
  const double phi = -2.0 * s.mass[1] / std::sqrt(s2);
  CHECK(out.pot[0] ==
        Approx(phi).epsilon(4.0 * 6e-8 * (1.0 + s.mass[0] / 0.1 / std::fabs(phi / 2.0))));
}

#endif  // MPSPH_HAVE_CUDA
