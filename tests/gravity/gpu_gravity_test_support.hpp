// Shared by the GPU gravity tests (CUDA builds only): device copies of the fields gravity reads
// and writes, and error percentiles that also report the largest error.
#pragma once

#ifdef MPSPH_HAVE_CUDA

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/device_particles.hpp"
#include "core/particle_store.hpp"

namespace mpsph::test {

// Uploads the fields of the gravity stage (positions, masses, types, previous accelerations).
inline void upload_gravity(DeviceParticles& d, const ParticleStore& s) {
  d.upload(s, {Field::pos, Field::mass, Field::type, Field::acc_grav, Field::pot});
}

inline void download_gravity(const DeviceParticles& d, ParticleStore& s) {
  d.download(s, {Field::acc_grav, Field::pot});
}

struct Percentiles {
  double median, p99, p999, max;
};

inline Percentiles percentiles(std::vector<double> e) {
  std::sort(e.begin(), e.end());
  const auto at = [&e](double q) { return e[std::min(e.size() - 1, std::size_t(q * e.size()))]; };
  return {at(0.5), at(0.99), at(0.999), e.back()};
}

// |a - a_ref| / |a_ref| for the first n particles.
inline Percentiles acc_errors(const std::vector<Vec3d>& a, const std::vector<Vec3d>& ref,
                              std::size_t n) {
  std::vector<double> e(n);
  for (std::size_t i = 0; i < n; ++i) e[i] = norm(a[i] - ref[i]) / norm(ref[i]);
  return percentiles(e);
}

// |phi - phi_ref| / |phi_ref| for the first n particles.
inline Percentiles pot_errors(const std::vector<double>& p, const std::vector<double>& ref,
                              std::size_t n) {
  std::vector<double> e(n);
  for (std::size_t i = 0; i < n; ++i) e[i] = std::fabs(p[i] - ref[i]) / std::fabs(ref[i]);
  return percentiles(e);
}

}  // namespace mpsph::test

#endif  // MPSPH_HAVE_CUDA
