#include "run/health.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "run/health_kern.hpp"

namespace mpsph {

namespace {

const char* kFieldNames[kHealthBits] = {"h (smoothing lengths)",
                                        "rho (density)",
                                        "div v / curl v (density)",
                                        "pressure / sound speed (prepare force)",
                                        "du/dt (SPH forces)",
                                        "gravity acceleration / potential (gravity)",
                                        "acceleration (end force)",
                                        "u (correct / cooling)",
                                        "mass",
                                        "velocity (correct)",
                                        "position (correct)",
                                        "X_H / O / Fe mass fraction (physics modules)",
                                        "star birth time / initial mass (star formation)",
                                        "sink spin (sinks)"};

}  // namespace

HealthReport check_health(const ParticleView& p) {
  HealthReport r;
  const auto n = static_cast<std::ptrdiff_t>(p.n);
  uint32_t bits = 0;
  std::size_t first = SIZE_MAX;
#pragma omp parallel for schedule(static) reduction(| : bits) reduction(min : first)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const uint32_t b = particle_health(p, std::size_t(i));
    if (b) {
      bits |= b;
      first = std::min(first, std::size_t(i));
    }
  }
  r.bits = bits;
  r.first = first;
  return r;
}

std::string health_field_name(uint32_t bits) {
  for (int k = 0; k < kHealthBits; ++k)
    if ((bits >> k) & 1u) return kFieldNames[k];
  return "none";
}

std::string health_fields(uint32_t bits) {
  std::string out;
  for (int k = 0; k < kHealthBits; ++k)
    if ((bits >> k) & 1u) out += (out.empty() ? "" : ", ") + std::string(kFieldNames[k]);
  return out;
}

std::string describe_particle_health(const ParticleStore& s, std::size_t i, int k) {
  auto state = [&s](std::size_t j) {
    char b[400];
    const Vec3d& x = s.pos[j];
    const Vec3d& v = s.vel[j];
    const Vec3d& a = s.acc[j];
    int len = std::snprintf(b, sizeof b,
                            "id %llu type %d m %.6g x (%.6g %.6g %.6g) v (%.6g %.6g %.6g) "
                            "a (%.4g %.4g %.4g)",
                            (unsigned long long)s.id[j], int(s.type[j]), s.mass[j], x.x, x.y, x.z,
                            v.x, v.y, v.z, a.x, a.y, a.z);
    if (s.type[j] == kGas && len > 0 && std::size_t(len) < sizeof b)
      std::snprintf(b + len, sizeof b - std::size_t(len), " u %.6g h %.6g rho %.6g du/dt %.4g",
                    s.u[j], double(s.h[j]), double(s.rho[j]), s.dudt[j]);
    return std::string(b);
  };
  std::string out = "particle " + state(i);
  // Nearest neighbours of i by distance (positions may be bad: then by index order).
  std::vector<std::pair<double, std::size_t>> d;
  d.reserve(s.size());
  for (std::size_t j = 0; j < s.size(); ++j)
    if (j != i) d.push_back({norm(s.pos[j] - s.pos[i]), j});
  const std::size_t m = std::min<std::size_t>(std::size_t(k), d.size());
  std::partial_sort(d.begin(), d.begin() + m, d.end(), [](const auto& a, const auto& b) {
    const bool fa = std::isfinite(a.first), fb = std::isfinite(b.first);
    if (fa != fb) return fa;
    return fa ? a.first < b.first : a.second < b.second;
  });
  out += "; its " + std::to_string(m) + " nearest particles:";
  for (std::size_t q = 0; q < m; ++q) {
    char r[48];
    std::snprintf(r, sizeof r, "\n  r = %.4g: ", d[q].first);
    out += r + state(d[q].second) + " [" +
           health_fields(particle_health(const_cast<ParticleStore&>(s).view(), d[q].second)) + "]";
  }
  return out;
}

}  // namespace mpsph
