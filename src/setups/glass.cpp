#include "setups/glass.hpp"

#include <algorithm>
#include <cmath>

#include "core/box.hpp"
#include "core/error.hpp"
#include "core/particle_order.hpp"
#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/smoothing_length.hpp"

namespace mpsph {

namespace {

constexpr double kGamma = 5.0 / 3.0;
constexpr double kStep = 0.3;     // displacement per unit h^2 a / ((gamma - 1) u)
constexpr double kMaxMove = 0.2;  // at most this many h_i per iteration

double density_scatter(const ParticleStore& s) {
  double sum = 0, sum2 = 0;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) sum += s.rho[i], sum2 += double(s.rho[i]) * s.rho[i];
  const double mean = sum / double(n);
  return std::sqrt(std::max(0.0, sum2 / double(n) - mean * mean)) / mean;
}

}  // namespace

Glass make_glass(const GlassParams& p) {
  // The (N_B+1)-th neighbour must lie within half the periodic cube: n (pi/6) > N_B + 1, with a
  // margin of 2 for the density contrasts of the random start.
  const int n_min = 4 * (p.n_neighbours + 1);
  if (p.n < n_min)
    throw Error("glass: " + std::to_string(p.n) + " particles are too few for " +
                std::to_string(p.n_neighbours) + " neighbours in a periodic cube (at least " +
                std::to_string(n_min) + ")");
  Box box;
  box.periodic = true;
  box.lo = {0, 0, 0};
  box.size = {1, 1, 1};
  ParticleStore s;
  s.resize(std::size_t(p.n));
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.pos[i] = {random_uniform(i, p.seed, kStreamSetup, 0),
                random_uniform(i, p.seed, kStreamSetup, 1),
                random_uniform(i, p.seed, kStreamSetup, 2)};
    s.mass[i] = 1.0 / p.n;
    s.u[i] = 1.0;
    s.id[i] = i + 1;
  }
  SphParams sph;
  sph.n_neighbours = p.n_neighbours;
  EosParams eos;
  eos.gamma = kGamma;
  SphNeighbours nb;
  Glass g;
  for (g.iterations = 0;; ++g.iterations) {
    order_particles(s, box);
    compute_smoothing_lengths(s, box, sph, nb);
    compute_density(s, box, sph, nb);
    g.rho_scatter = density_scatter(s);
    if (g.rho_scatter < p.target_scatter || g.iterations == p.max_iterations) break;
    prepare_force(s, eos, sph);
    compute_sph_forces(s, box, sph, nb);
    const double scale = kStep / ((kGamma - 1.0) * 1.0);
    const auto n = static_cast<std::ptrdiff_t>(s.size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const double h = s.h[i];
      Vec3d dx = scale * h * h * s.acc[i];
      const double len = norm(dx);
      if (len > kMaxMove * h) dx *= kMaxMove * h / len;
      s.pos[i] = wrap_position(s.pos[i] + dx, box);
    }
  }
  g.pos = s.pos;
  return g;
}

}  // namespace mpsph
