#include "gravity/direct_gravity.hpp"

#include "gravity/gravity_kern.hpp"

namespace mpsph {

namespace {

template <class T, SofteningKernel K>
void direct_sum(const GravitySources& s, double G, std::size_t first, std::size_t last, Vec3d* acc,
                double* pot) {
  const std::ptrdiff_t b = std::ptrdiff_t(first), e = std::ptrdiff_t(last);
  const std::ptrdiff_t n = std::ptrdiff_t(s.n);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t i = b; i < e; ++i) {
    const Vec3d xi = s.pos[i];
    const T ei2 = T(s.eps[i]) * T(s.eps[i]);
    double ax = 0.0, ay = 0.0, az = 0.0, pt = 0.0;
    // Two loops skip the target itself without a test in the inner loop.
    for (int part = 0; part < 2; ++part) {
      const std::ptrdiff_t jb = part == 0 ? 0 : i + 1, je = part == 0 ? i : n;
#pragma omp simd reduction(+ : ax, ay, az, pt)
      for (std::ptrdiff_t j = jb; j < je; ++j) {
        const T dx = T(xi.x - s.pos[j].x), dy = T(xi.y - s.pos[j].y), dz = T(xi.z - s.pos[j].z);
        const T ej = T(s.eps[j]);
        const GravFactors<T> f =
            softened_factors<K>(dx * dx + dy * dy + dz * dz, T(0.5) * (ei2 + ej * ej));
        // g1 * dx is the antisymmetric part; the mass multiplies in double.
        const double m = s.mass[j];
        ax -= m * double(f.g1 * dx);
        ay -= m * double(f.g1 * dy);
        az -= m * double(f.g1 * dz);
        pt -= m * double(f.g);
      }
    }
    acc[i] = {G * ax, G * ay, G * az};
    pot[i] = G * pt;
  }
}

template <class T>
void direct_dispatch(const GravitySources& s, SofteningKernel kernel, double G, std::size_t first,
                     std::size_t last, Vec3d* acc, double* pot) {
  if (kernel == SofteningKernel::Spline) {
    direct_sum<T, SofteningKernel::Spline>(s, G, first, last, acc, pot);
  } else {
    direct_sum<T, SofteningKernel::Plummer>(s, G, first, last, acc, pot);
  }
}

}  // namespace

void direct_gravity(const GravitySources& src, SofteningKernel kernel, double G, std::size_t first,
                    std::size_t last, Vec3d* acc, double* pot) {
  direct_dispatch<float>(src, kernel, G, first, last, acc, pot);
}

void direct_gravity_double(const GravitySources& src, SofteningKernel kernel, double G,
                           std::size_t first, std::size_t last, Vec3d* acc, double* pot) {
  direct_dispatch<double>(src, kernel, G, first, last, acc, pot);
}

}  // namespace mpsph
