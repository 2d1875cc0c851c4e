// Viscosity among the clouds (PHYSICS.md section 5, scheme A; "N-body + viscosity", Theis &
// Hensler 1993): the cloud system treated as a fluid of its own. Each cloud's smoothing length
// and density come from the cloud set only (its k nearest clouds), the linear term's signal speed
// is the cloud velocity dispersion with a floor sigma_c, and the Monaghan & Gingold (1983)
// viscosity of the SPH force acts between clouds. Pure MPSPH_HD functions shared by the OpenMP
// driver (sticky_clouds.cpp) and the CUDA driver (sticky_clouds_gpu.cu); all in double.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/active_set.hpp"
#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "multiphase/cloud_grid_kern.hpp"
#include "multiphase/cloud_timestep_kern.hpp"
#include "sph/kernel_kern.hpp"

namespace mpsph {

constexpr int kMaxCloudNeighbours = 64;

struct CloudViscosityParams {
  double alpha, beta;  // Monaghan & Gingold 1983 coefficients (1 and 2 in the seed SPH)
  double sigma_c;      // dispersion floor [V]: the signal speed is max(sigma_i, sigma_c)
  int k_ngb;           // neighbours (clouds) inside 2 h_i, at most kMaxCloudNeighbours
  double courant = 0;  // C_visc of dt <= C_visc h_i / (c_i + max_j |v_ij|) (0: no criterion)
};

// A grid for the k-nearest search: cells holding ~k/8 clouds on average, over the clouds'
// bounding box [lo, hi] (open box) or the periodic box (an odd number of cells per dimension, so
// that rings of cells around a cloud up to (n_c - 1)/2 visit every cell once).
MPSPH_HD CloudGrid make_viscosity_grid(const Vec3d& lo, const Vec3d& hi, std::size_t n, int k,
                                       const Box& box) {
  CloudGrid g;
  g.periodic = box.periodic;
  const double e[3] = {box.periodic ? box.size.x : hi.x - lo.x,
                       box.periodic ? box.size.y : hi.y - lo.y,
                       box.periodic ? box.size.z : hi.z - lo.z};
  const double e_max = fmax(e[0], fmax(e[1], e[2]));
  double volume = 1.0;
  for (int d = 0; d < 3; ++d) volume *= fmax(e[d], 1e-3 * e_max);
  const double w = e_max > 0.0 ? std::cbrt(volume * double(k) / (8.0 * double(n))) : 1.0;
  for (int d = 0; d < 3; ++d) {
    double c = std::floor(e[d] / w);
    if (box.periodic) {
      c = c < 1.0 ? 1.0 : c;
      if (std::fmod(c, 2.0) == 0.0) c -= 1.0;
      c = c > 1048575.0 ? 1048575.0 : c;
      g.ncell[d] = int64_t(c);
      g.cell[d] = e[d] / c;
    } else {
      c = c + 1.0 > 1048576.0 ? 1048576.0 : c + 1.0;
      g.ncell[d] = int64_t(c);
      g.cell[d] = fmax(w, e[d] / c * (1.0 + 1e-12));
    }
  }
  g.lo = box.periodic ? box.lo : lo;
  return g;
}

// The k nearest clouds of one cloud, ascending by (r^2, local index): the same list in any order
// of visiting.
struct NearestClouds {
  double r2[kMaxCloudNeighbours];
  uint32_t j[kMaxCloudNeighbours];
  int n;
};

MPSPH_HD void insert_nearest(NearestClouds& nc, int k, double r2, uint32_t j) {
  if (nc.n == k && (r2 > nc.r2[k - 1] || (r2 == nc.r2[k - 1] && j > nc.j[k - 1]))) return;
  int p = nc.n < k ? nc.n++ : k - 1;
  while (p > 0 && (nc.r2[p - 1] > r2 || (nc.r2[p - 1] == r2 && nc.j[p - 1] > j))) {
    nc.r2[p] = nc.r2[p - 1];
    nc.j[p] = nc.j[p - 1];
    --p;
  }
  nc.r2[p] = r2;
  nc.j[p] = j;
}

// The k nearest of the clouds [begin, begin + n) (keys sorted, local[] their local indices) to
// cloud local index `me`, searching rings of cells outwards until no unvisited cell can hold a
// nearer cloud. k <= n - 1.
MPSPH_HD void find_nearest_clouds(const ParticleView& s, const CloudGrid& g, const uint64_t* keys,
                                  const uint32_t* local, std::size_t begin, std::size_t n,
                                  const Box& box, uint32_t me, int k, NearestClouds& nc) {
  nc.n = 0;
  if (k <= 0) return;
  const Vec3d x = s.pos[begin + me];
  int64_t c[3];
  cloud_cell(g, x, c);
  int64_t reach[3];  // farthest ring offset per dimension
  for (int d = 0; d < 3; ++d) reach[d] = g.periodic ? (g.ncell[d] - 1) / 2 : g.ncell[d];
  const int64_t r_max = reach[0] > reach[1] ? (reach[0] > reach[2] ? reach[0] : reach[2])
                                            : (reach[1] > reach[2] ? reach[1] : reach[2]);
  const double w_min = fmin(g.cell[0], fmin(g.cell[1], g.cell[2]));
  for (int64_t r = 0; r <= r_max; ++r) {
    for (int64_t a = -r; a <= r; ++a) {
      if (a < -reach[0] || a > reach[0]) continue;
      for (int64_t b = -r; b <= r; ++b) {
        if (b < -reach[1] || b > reach[1]) continue;
        for (int64_t e = -r; e <= r; ++e) {
          if (e < -reach[2] || e > reach[2]) continue;
          const int64_t m =
              (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b);
          if ((m > (e < 0 ? -e : e) ? m : (e < 0 ? -e : e)) != r) continue;  // ring r only
          const int64_t cx = shifted_cell(g, 0, c[0], int(a)),
                        cy = shifted_cell(g, 1, c[1], int(b)),
                        cz = shifted_cell(g, 2, c[2], int(e));
          if (!g.periodic && (cx < 0 || cy < 0 || cz < 0 || cx >= g.ncell[0] || cy >= g.ncell[1] ||
                              cz >= g.ncell[2]))
            continue;
          const uint64_t key = cloud_cell_key(cx, cy, cz);
          for (std::size_t q = lower_bound_key(keys, n, key); q < n && keys[q] == key; ++q) {
            const uint32_t j = local[q];
            if (j == me) continue;
            insert_nearest(nc, k, norm2(min_image(x - s.pos[begin + j], box)), j);
          }
        }
      }
    }
    // Every cloud outside rings 0..r is farther than r cell widths.
    if (nc.n == k && nc.r2[k - 1] <= double(r) * w_min * double(r) * w_min) break;
  }
}

// Smoothing length, density and signal speed of one cloud from its nearest clouds.
struct CloudFluid {
  double h;    // 2h = distance of the k-th nearest cloud
  double rho;  // sum_j m_j W(r_ij, h), self included
  double c;    // max(sigma, sigma_c): sigma the kernel-weighted 1D velocity dispersion
};

MPSPH_HD CloudFluid cloud_fluid(const ParticleView& s, const NearestClouds& nc, std::size_t begin,
                                uint32_t me, double sigma_c) {
  CloudFluid f{0.0, 0.0, sigma_c};
  if (nc.n == 0) return f;
  f.h = 0.5 * std::sqrt(nc.r2[nc.n - 1]);
  const std::size_t i = begin + me;
  const double w0 = s.mass[i] * kernel_w(0.0, f.h);
  double wsum = w0;
  Vec3d vmean = w0 * s.vel[i];
  for (int q = 0; q < nc.n; ++q) {
    const std::size_t j = begin + nc.j[q];
    const double w = s.mass[j] * kernel_w(std::sqrt(nc.r2[q]), f.h);
    wsum += w;
    vmean += w * s.vel[j];
  }
  f.rho = wsum;
  vmean = (1.0 / wsum) * vmean;
  double var = w0 * norm2(s.vel[i] - vmean);
  for (int q = 0; q < nc.n; ++q) {
    const std::size_t j = begin + nc.j[q];
    var += s.mass[j] * kernel_w(std::sqrt(nc.r2[q]), f.h) * norm2(s.vel[j] - vmean);
  }
  const double sigma = std::sqrt(var / (3.0 * wsum));
  f.c = sigma > sigma_c ? sigma : sigma_c;
  return f;
}

// Viscous acceleration of cloud i from the clouds j of its list with r_ij < 2 min(h_i, h_j) (a
// symmetric condition: i and j both see the pair, and the forces are equal and opposite):
//   a_i = -sum_j m_j Pi_ij grad_i W(r_ij, h_ij),  Pi_ij = (-alpha c_ij mu_ij + beta mu_ij^2)/rho_ij
// for approaching pairs (v_ij . x_ij < 0), mu_ij = h_ij v_ij . x_ij / (r_ij^2 + 0.01 h_ij^2),
// pair means h_ij, c_ij, rho_ij. [V^2 / L]
MPSPH_HD Vec3d cloud_viscous_acc(const ParticleView& s, const CloudViscosityParams& p,
                                 const uint32_t* nbr, int n_nbr, const double* h, const double* rho,
                                 const double* c, std::size_t begin, uint32_t me, const Box& box) {
  Vec3d a{0, 0, 0};
  const std::size_t i = begin + me;
  for (int q = 0; q < n_nbr; ++q) {
    const uint32_t jl = nbr[q];
    const std::size_t j = begin + jl;
    const Vec3d x_ij = min_image(s.pos[i] - s.pos[j], box);
    const double r2 = norm2(x_ij);
    const double h_min = h[me] < h[jl] ? h[me] : h[jl];
    if (!(r2 < 4.0 * h_min * h_min)) continue;
    const double vr = dot(s.vel[i] - s.vel[j], x_ij);
    if (vr >= 0.0) continue;
    const double h_ij = 0.5 * (h[me] + h[jl]);
    const double mu = h_ij * vr / (r2 + 0.01 * h_ij * h_ij);
    const double pi_ij =
        (-p.alpha * 0.5 * (c[me] + c[jl]) * mu + p.beta * mu * mu) / (0.5 * (rho[me] + rho[jl]));
    const double r = std::sqrt(r2);
    a -= (s.mass[j] * pi_ij * kernel_dwdr(r, h_ij) / r) * x_ij;
  }
  return a;
}

// The largest relative speed |v_ij| of cloud i to the clouds j of its list it interacts with, r_ij
// < 2 min(h_i, h_j) (the pairs of cloud_viscous_acc, approaching or not) [V].
MPSPH_HD double cloud_max_relative_speed(const ParticleView& s, const uint32_t* nbr, int n_nbr,
                                         const double* h, std::size_t begin, uint32_t me,
                                         const Box& box) {
  double v2 = 0.0;
  const std::size_t i = begin + me;
  for (int q = 0; q < n_nbr; ++q) {
    const uint32_t jl = nbr[q];
    const std::size_t j = begin + jl;
    const double r2 = norm2(min_image(s.pos[i] - s.pos[j], box));
    const double h_min = h[me] < h[jl] ? h[me] : h[jl];
    if (!(r2 < 4.0 * h_min * h_min)) continue;
    const double d2 = norm2(s.vel[i] - s.vel[j]);
    if (d2 > v2) v2 = d2;
  }
  return std::sqrt(v2);
}

// The signal-speed criterion of cloud i (cloud_timestep_kern.hpp), from the velocities before the
// kick: records (c_i + max_j |v_ij|) / (C_visc h_i) as its step rate.
MPSPH_HD void record_viscosity_step_rate(const ParticleView& s, const CloudViscosityParams& p,
                                         const uint32_t* nbr, int n_nbr, const double* h,
                                         const double* c, std::size_t begin, uint32_t me,
                                         const Box& box) {
  const double v_max = cloud_max_relative_speed(s, nbr, n_nbr, h, begin, me, box);
  record_cloud_step_rate(s, begin + me, viscosity_step_rate(h[me], c[me], v_max, p.courant));
}

// Applies the viscous acceleration a of cloud i over its step dt as a kick, Delta v = a dt, to v
// and to the step's base v0 (so the corrector keeps it, as for a collision): the viscosity is
// integrated operator-split, to first order in dt. Returns the kinetic energy it takes out,
// -m (v . Delta v + |Delta v|^2 / 2), exact for the kick, so that E_total + E_cloud_viscosity is
// conserved to round-off when no other force acts (with others, to O(a_other dt Delta v)).
MPSPH_HD double apply_viscous_kick(const ParticleView& s, std::size_t i, const Vec3d& a,
                                   double dt) {
  const Vec3d dv = dt * a;
  const double e = -s.mass[i] * (dot(s.vel[i], dv) + 0.5 * norm2(dv));
  s.vel[i] += dv;
  s.vel0[i] += dv;
  return e;
}

}  // namespace mpsph
