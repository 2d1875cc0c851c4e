// The OpenMP driver of sink creation and accretion (sink_kern.hpp), one call per (sub)step after
// the corrector, when the active particles are synchronised: new sinks form from the active gas,
// then every active sink accretes the active gas bound to it. The group of a candidate (the gas
// within h_acc) comes from a uniform grid over the gas with cells h_acc wide (the gas grid of the
// feedback stage, feedback/gas_neighbours.hpp), built once per call when there are candidates;
// sinks are few, so accretion tests each active gas particle against the list of sinks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/active_set.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/gas_neighbours.hpp"
#include "sinks/sink_kern.hpp"
#include "sinks/sink_merge_kern.hpp"

namespace mpsph {

struct SinkStepResult {
  std::size_t created = 0;   // new sinks this step
  std::size_t accreted = 0;  // gas particles swallowed this step
};

// The grid for the groups of sink candidates: the gas [0, n_gas) (`only`: those gas particles) in
// cells of feedback_range_cell(h_acc).
HostGasGrid build_sink_grid(const ParticleView& p, const Box& box, double h_acc,
                            const std::vector<uint32_t>* only = nullptr);

// The group of particle i on grid g (build_sink_grid with the same h_acc, gas positions unchanged
// since): every j with sink_group_member(p, i, j, box, h_acc^2), in ascending store index (the
// order of the energy sums, the same on the GPU).
std::vector<uint32_t> sink_group(const ParticleView& p, const HostGasGrid& g, std::size_t i,
                                 const Box& box, double h_acc);

// Whether gas particle i has the lowest potential of its group (sink_potential_minimum, ties
// allowed) on grid g (build_sink_grid with the same h_acc), without listing the group: false at
// the first member below it.
bool sink_potential_minimum_on_grid(const ParticleView& p, const HostGasGrid& g, std::size_t i,
                                    const Box& box, double h_acc);

// The creation criteria of gas particle i as bits of SinkCriterion that fail (0: it may become a
// sink), with its group (the gas within h_acc) and the sinks `sinks` (store indices) for the
// isolation test.
uint32_t sink_creation_failures(const ParticleView& p, std::size_t i, const Box& box,
                                const SinkKernParams& sp, const std::vector<uint32_t>& sinks);

// Creation, then accretion, over the active particles `a` (all under the global scheme). `time`
// is the formation time of new sinks. A new sink at once takes the active gas within h_acc of it
// (its group, bound as a whole by the creation criteria), as BBP95 replace the particles inside
// the accretion radius by the sink; then every active sink accretes the active gas bound to it.
SinkStepResult sink_step(const ParticleView& p, const ActiveSet& a, const Box& box,
                         const SinkKernParams& sp, double time);

// Sink-sink merging over the active sinks (sink_merge_kern.hpp: mutual-nearest bound pairs closer
// than mp.r_merge, the lower id survives): one merge per sink and call. Returns the merges, by the
// survivor's id.
std::vector<SinkMergeRecord> sink_merge_step(const ParticleView& p, const ActiveSet& a,
                                             const Box& box, const SinkMergeParams& mp);

// Block steps: every inactive gas particle within `radius` of an active sink on a deeper rung
// than its own is woken onto the sink's rung (timestep/block_step_kern.hpp wake_particle: its
// step is cut to end at the first boundary of that rung after now), so that gas near a sink is
// active whenever the sink is and is accreted without delay. Returns how many were woken.
std::size_t wake_near_sinks(const ParticleView& p, const ActiveSet& a, const Box& box,
                            double radius);

// Block steps, at the time-step stage (slot StepLimit) of the substep whose active particles are
// `a` in a segment of `length` code time: every sink follows the shortest step of the gas within
// `radius` of it (sink_timestep_kern.hpp): an active sink's dt_limit is cut to it, an inactive
// sink on a longer step is woken.
void follow_gas_steps(const ParticleView& p, const ActiveSet& a, const Box& box, double radius,
                      double length);

// The store indices of the sinks of p, ascending.
std::vector<uint32_t> sink_indices(const ParticleView& p);

// follow_gas_steps' last part: sink sinks[q] follows dt_gas[q], the shortest step of the gas near
// it (HUGE_VAL: none near), at tick `now` of a segment of `length`.
void follow_shortest_gas_steps(const ParticleView& p, const std::vector<uint32_t>& sinks,
                               const double* dt_gas, int64_t now, double length);

// The shortest gas_step_near_sink (sink_timestep_kern.hpp) of the gas [0, n_gas) of p within
// `radius` of each point at[q] (HUGE_VAL where there is none): follow_gas_steps' part that reads
// the gas, which the MPI ranks reduce over every rank's gas (minima: one process's values).
std::vector<double> shortest_gas_steps_near(const ParticleView& p, const ActiveSet& a,
                                            const Box& box, double radius, double length,
                                            const std::vector<Vec3d>& at);

}  // namespace mpsph
