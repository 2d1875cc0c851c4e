// Individual time steps: the SPH stages over an active subset give the active particles exactly
// what the full stages give them (same h, same complete pair lists - including the pairs only an
// inactive neighbour's larger kernel reaches -, same density and forces), and leave the inactive
// particles alone.
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "sph/density.hpp"
#include "sph/force.hpp"
#include "sph/smoothing_length.hpp"
#include "sph_test_setup.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every `stride`-th particle plus a cluster of consecutive ones, sorted: gas only.
std::vector<uint32_t> pick_active(std::size_t n, std::size_t stride) {
  std::vector<uint32_t> a;
  for (std::size_t i = 0; i < n; ++i)
    if (i % stride == 0 || (i > n / 2 && i < n / 2 + 40)) a.push_back(uint32_t(i));
  return a;
}

void check_subset(const std::vector<Vec3d>& pts, const Box& box) {
  SphParams p;
  EosParams eos;
  ParticleStore full = gas_store(pts, 1.0 / double(pts.size()));
  random_velocities(full, 1.0, 77);
  SphNeighbours nb_full;
  compute_smoothing_lengths(full, box, p, nb_full);
  compute_density(full, box, p, nb_full);
  prepare_force(full, eos, p);
  compute_sph_forces(full, box, p, nb_full);

  // The same particles with every h, rho, ... already set (as after an earlier full step), then
  // the stages again over a subset: the active particles must come out identical, the others
  // untouched (marked with sentinel values).
  ParticleStore sub = full;
  const std::vector<uint32_t> act = pick_active(pts.size(), 7);
  ActiveSet a{act.data(), act.size(), act.size()};
  std::vector<uint8_t> is_active(pts.size(), 0);
  for (uint32_t i : act) is_active[i] = 1;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!is_active[i]) sub.acc[i] = {-7, -7, -7};
  SphNeighbours nb_sub;
  compute_smoothing_lengths(sub, box, p, nb_sub, a);
  compute_density(sub, box, p, nb_sub, a);
  prepare_force(sub, eos, p, a);
  compute_sph_forces(sub, box, p, nb_sub, a);

  std::size_t reverse_pairs = 0, mismatched_lists = 0, mismatched_values = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!is_active[i]) {
      CHECK(sub.acc[i].x == -7.0);
      continue;
    }
    const std::vector<uint32_t> lf(nb_full.pairs_begin(i), nb_full.pairs_end(i));
    const std::vector<uint32_t> ls(nb_sub.pairs_begin(i), nb_sub.pairs_end(i));
    mismatched_lists += lf != ls;
    for (uint32_t j : lf)
      reverse_pairs +=
          !is_active[j] && !(dist2(full, i, j, box) < 4.0 * double(full.h[i]) * double(full.h[i]));
    mismatched_values +=
        !(sub.h[i] == full.h[i] && sub.rho[i] == full.rho[i] &&
          same_bits(sub.acc[i].x, full.acc[i].x) && same_bits(sub.acc[i].y, full.acc[i].y) &&
          same_bits(sub.dudt[i], full.dudt[i]));
  }
  CHECK(mismatched_lists == 0);
  CHECK(mismatched_values == 0);
  // The distribution must exercise the pairs only an inactive neighbour's search can find.
  CHECK(reverse_pairs > 0);
}

}  // namespace

TEST_CASE("SPH stages over an active subset match the full stages (open box)", "[sph][block]") {
  check_subset(clustered_points(3000, {0, 0, 0}, 1.0, 5), Box{});
}

TEST_CASE("SPH stages over an active subset match the full stages (periodic box)", "[sph][block]") {
  // Clustered near a corner so that kernels and reverse pairs cross the faces.
  const Box box = periodic_box({0, 0, 0}, {1, 1, 1});
  std::vector<Vec3d> pts = clustered_points(2500, {0.02, 0.98, 0.5}, 0.45, 9);
  for (Vec3d& x : pts) x = wrap_position(x, box);
  const std::vector<Vec3d> bg = uniform_points(1500, {0, 0, 0}, {1, 1, 1}, 10);
  pts.insert(pts.end(), bg.begin(), bg.end());
  check_subset(pts, box);
}
