// Isolated-disk stability run shared by the CI-size validation and the heavy run: runs a
// disk_galaxy config and measures the disks' structure in the first and last snapshot.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "io/snapshot.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"

namespace mpsph::test {

struct DiskStructure {
  double t = 0;
  double stars_r50 = 0, stars_r80 = 0;  // radii holding 50% and 80% of the disk stars' mass
  double gas_r50 = 0, gas_r80 = 0;
  double stars_zmed = 0;  // median |z| of disk stars at R_d < R < 3 R_d (disk frame)
  double gas_zmed = 0;
  // Mean rotation velocity v_phi (disk frame, about the disk stars' angular momentum) at
  // R_d < R < 3 R_d: the rotation curve where the disk dominates.
  double stars_vphi = 0, gas_vphi = 0;
};

// Disk stars are the type-3 particles with ids up to n_gas + n_halo + n_disk (the bulge follows).
// Centre: shrinking spheres on the disk stars; z: along the disk stars' angular momentum within
// 10 kpc (the disk tilts in a noisy halo: at 5 000 halo particles by enough in 0.1 Gyr to raise
// the median |z| in fixed axes by 36%, against 9% in the disk's own frame).
inline DiskStructure measure_disk(const std::string& snap, std::size_t last_disk_id, double Rd) {
  SnapshotMeta meta;
  const ParticleStore s = read_snapshot(snap, &meta);
  std::vector<Vec3d> xs, vs, xg, vg;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] == kOldStar && s.id[i] <= last_disk_id)
      xs.push_back(s.pos[i]), vs.push_back(s.vel[i]);
    if (s.type[i] == kGas) xg.push_back(s.pos[i]), vg.push_back(s.vel[i]);
  }
  // Shrinking-sphere centre of the disk stars.
  Vec3d c{0, 0, 0};
  for (const Vec3d& x : xs) c += x;
  c *= 1.0 / double(xs.size());
  for (double r = 30.0; r > 2.0; r *= 0.8) {
    Vec3d sum{0, 0, 0};
    double n = 0;
    for (const Vec3d& x : xs)
      if (norm(x - c) < r) sum += x, n += 1;
    if (n < 100) break;
    c = (1.0 / n) * sum;
  }
  Vec3d vc{0, 0, 0}, L{0, 0, 0};
  double nv = 0;
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (norm(xs[k] - c) < 10.0) vc += vs[k], nv += 1;
  vc *= 1.0 / nv;
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (norm(xs[k] - c) < 10.0) L += cross(xs[k] - c, vs[k] - vc);
  const Vec3d ez = (1.0 / norm(L)) * L;
  auto radii = [&](const std::vector<Vec3d>& xv, double* r50, double* r80, double* zmed) {
    std::vector<double> R, z;
    for (const Vec3d& x : xv) {
      const Vec3d d = x - c;
      const double zc = dot(d, ez);
      const double Rc = std::sqrt(std::fmax(norm2(d) - zc * zc, 0.0));
      R.push_back(Rc);
      if (Rc > Rd && Rc < 3 * Rd) z.push_back(std::fabs(zc));
    }
    std::sort(R.begin(), R.end());
    std::sort(z.begin(), z.end());
    *r50 = R[R.size() / 2];
    *r80 = R[R.size() * 4 / 5];
    *zmed = z[z.size() / 2];
  };
  // Mean v_phi = (ez x R_hat) . (v - vc) at R_d < R < 3 R_d.
  auto vphi = [&](const std::vector<Vec3d>& xv, const std::vector<Vec3d>& vv) {
    double sum = 0, n = 0;
    for (std::size_t k = 0; k < xv.size(); ++k) {
      const Vec3d d = xv[k] - c;
      const Vec3d Rv = d - dot(d, ez) * ez;
      const double R = norm(Rv);
      if (R > Rd && R < 3 * Rd) sum += dot(cross(ez, (1.0 / R) * Rv), vv[k] - vc), n += 1;
    }
    return n > 0 ? sum / n : 0.0;
  };
  DiskStructure d;
  d.t = meta.time;
  d.stars_vphi = vphi(xs, vs);
  d.gas_vphi = vg.empty() ? 0.0 : vphi(xg, vg);
  radii(xs, &d.stars_r50, &d.stars_r80, &d.stars_zmed);
  radii(xg, &d.gas_r50, &d.gas_r80, &d.gas_zmed);
  return d;
}

inline void print_disk(const char* label, const DiskStructure& d) {
  std::printf(
      "%s t = %.4f: stars R50 %.3f R80 %.3f median|z| %.4f; gas R50 %.3f R80 %.3f median|z| "
      "%.4f (kpc); mean v_phi at R_d..3 R_d: stars %.2f, gas %.2f (code velocity)\n",
      label, d.t, d.stars_r50, d.stars_r80, d.stars_zmed, d.gas_r50, d.gas_r80, d.gas_zmed,
      d.stars_vphi, d.gas_vphi);
}

}  // namespace mpsph::test
