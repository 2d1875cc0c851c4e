#include "timestep/integrator.hpp"

#include <algorithm>
#include <cfloat>

#include "timestep/block_step_kern.hpp"
#include "timestep/timestep_kern.hpp"

namespace mpsph {

bool begin_segment(ParticleStore& s, double length, bool single_rung) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(v.n);
  int too_short = 0;
#pragma omp parallel for schedule(static) reduction(max : too_short)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    int rung = 0;
    if (!single_rung) {
      rung = rung_for_dt(v.dt_limit[i], length);
      too_short = std::max(too_short, int(std::ldexp(length, -rung) > v.dt_limit[i]));
    }
    begin_particle_step(v, std::size_t(i), 0, rung);
  }
  return too_short == 0;
}

int64_t next_tick(const ParticleStore& s) {
  const auto n = static_cast<std::ptrdiff_t>(s.size());
  int64_t t = kTicks;
#pragma omp parallel for schedule(static) reduction(min : t)
  for (std::ptrdiff_t i = 0; i < n; ++i) t = std::min(t, s.ti_end[i]);
  return t;
}

void select_active(const ParticleStore& s, int64_t now, std::vector<uint32_t>& index,
                   std::size_t& n_gas) {
  index.clear();
  n_gas = 0;
  const std::size_t n = s.size(), ng = s.n_gas();
  for (std::size_t i = 0; i < n; ++i)
    if (s.ti_end[i] == now) {
      index.push_back(uint32_t(i));
      n_gas += i < ng;
    }
}

ActiveSet substep_active_set(const ParticleStore& s, int64_t now, bool block,
                             std::vector<uint32_t>& index) {
  if (!block || now == kAllActive || now >= kTicks) return ActiveSet{};
  std::size_t n_gas = 0;
  select_active(s, now, index, n_gas);
  return active_subset(index, n_gas, now);
}

double smallest_dt_limit(const ParticleStore& s, const ActiveSet& a) {
  const auto n = static_cast<std::ptrdiff_t>(a.count(s.size()));
  double dt_min = DBL_MAX;
#pragma omp parallel for schedule(static) reduction(min : dt_min)
  for (std::ptrdiff_t k = 0; k < n; ++k) dt_min = std::min(dt_min, s.dt_limit[a[std::size_t(k)]]);
  return dt_min;
}

void predict_to(ParticleStore& s, int64_t now, double tick_len, const Box& box,
                const EosParams& eos) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(v.n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    predict_particle(v, std::size_t(i), now, tick_len, box, eos);
}

void correct_active(ParticleStore& s, const ActiveSet& a, double tick_len, const Box& box,
                    bool correct_u) {
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(a.count(s.size()));
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) correct_particle(v, a[k], tick_len, box, correct_u);
}

double compute_timestep_criteria(ParticleStore& s, const ActiveSet& a, const TimestepParams& tp,
                                 const GravityParams& gp, bool gas_sph) {
  const TimestepCriteria c = timestep_criteria(tp);
  const SofteningByType soft = softening_by_type(gp, gas_sph);
  const ParticleView v = s.view();
  const auto n = static_cast<std::ptrdiff_t>(a.count(s.size()));
  double dt = DBL_MAX;
#pragma omp parallel for reduction(min : dt) schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const std::size_t i = a[k];
    v.dt_crit[i] = particle_timestep(timestep_input(v, i, soft), c);
    dt = std::min(dt, v.dt_crit[i]);
  }
  return dt;
}

}  // namespace mpsph
