#include "gravity/gravity_solver.hpp"

#include <omp.h>

#include <algorithm>

#include "core/particle_store.hpp"
#include "gravity/direct_gravity.hpp"

namespace mpsph {

void GravitySolver::compute(ParticleStore& s, const GravityParams& p, double G,
                            const ActiveSet& active, TreeUpdate update) {
  const std::size_t n = s.size();
  eps_.resize(n);
  for (std::size_t i = 0; i < n; ++i) eps_[i] = float(p.softening[s.type[i]]);
  timings_ = {};
  stats_ = {};
  if (!p.enabled) {
    std::fill(s.acc_grav.begin(), s.acc_grav.end(), Vec3d{0, 0, 0});
    std::fill(s.pot.begin(), s.pot.end(), 0.0);
    return;
  }
  if (p.method == GravityMethod::Direct) {
    const double t0 = omp_get_wtime();
    const GravitySources src{s.pos.data(), s.mass.data(), eps_.data(), n};
    if (active.all()) {
      direct_gravity(src, p.kernel, G, 0, n, s.acc_grav.data(), s.pot.data());
    } else {
      // Consecutive runs of active particles as target ranges.
      for (std::size_t k = 0; k < active.n;) {
        std::size_t e = k + 1;
        while (e < active.n && active[e] == active[e - 1] + 1) ++e;
        direct_gravity(src, p.kernel, G, active[k], active[e - 1] + 1, s.acc_grav.data(),
                       s.pot.data());
        k = e;
      }
    }
    timings_.walk_s = omp_get_wtime() - t0;
    have_previous_ = true;
    return;
  }
  const double t0 = omp_get_wtime();
  if (update != TreeUpdate::Refit ||
      !tree_.refit(s.pos.data(), s.mass.data(), eps_.data(), n, p.leaf_size))
    tree_.build(s.pos.data(), s.mass.data(), eps_.data(), n, p.leaf_size);
  const double t1 = omp_get_wtime();

  const bool relative = p.criterion == OpeningCriterion::Relative && have_previous_;
  if (relative) {
    acc_old_.resize(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) acc_old_[i] = norm(s.acc_grav[i]);
  }
  TreeWalkParams wp;
  wp.opening = opening_params(p);
  wp.group_size = p.group_size;
  const uint8_t* mask = nullptr;
  if (!active.all()) {
    active_mask_.assign(n, 0);
    for (std::size_t k = 0; k < active.n; ++k) active_mask_[active[k]] = 1;
    mask = active_mask_.data();
  }
  stats_ = tree_gravity(tree_.view(), wp, G, relative ? acc_old_.data() : nullptr,
                        s.acc_grav.data(), s.pot.data(), mask, nullptr, 0, s.walk_cost.data());
  timings_.build_s = t1 - t0;
  timings_.walk_s = omp_get_wtime() - t1;
  have_previous_ = true;
}

}  // namespace mpsph
