// The gas neighbours of non-gas particles, on the CPU: the part that SSP feedback (stars, type 3
// and 4) and the cold phase (clouds, type 2: evaporation, condensation, drag) share. A source
// particle finds its N_B nearest gas particles on a uniform grid over the gas
// (feedback_grid_kern.hpp) and weighs them with w_j = m_j W(r_j, h*) / sum_k m_k W(r_k, h*)
// (feedback_weights, feedback_kern.hpp); the receivers then take their shares grouped by
// receiver, in the order of the sources, so the result does not depend on the number of threads
// and matches the CUDA drivers, which use the same functions (gas_neighbours_gpu.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback_grid_kern.hpp"

namespace mpsph {

// The gas [0, n_gas) of type kGas sorted by cell key (ascending store index within a cell), and
// the grid over it. Cell width: `cell` when > 0 (range searches: feedback_range_cell(r),
// feedback_cells_near), else the geometric mean of the gas smoothing lengths (the N_B nearest of
// the feedback and the cold phase: about 1.5 particles per cell where h is typical, as N_B lie
// within 2h).
struct HostGasGrid {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> idx;
  FeedbackGrid grid;
};

// `only` (ascending store indices of gas particles in [0, n_gas)): the grid holds those alone
// (null: every gas particle).
HostGasGrid build_gas_grid(const ParticleView& p, const Box& box, double cell = 0.0,
                           const std::vector<uint32_t>* only = nullptr);

// The shares of ns sources (slot s = 0 .. ns-1): receivers recv[s nb + k] with weights
// weight[s nb + k] for k < n_recv[s] (summing to 1), the kernel sum rho[s] = sum_k m_k W(r_k, h*)
// (the SPH density at the source [M/L^3]; 0 when every weight fell back to the mass) and h[s] = h*.
struct GasShares {
  int nb = 0;
  std::vector<uint32_t> recv;
  std::vector<double> weight;
  std::vector<int> n_recv;
  std::vector<double> rho, h;
};

// Fills `out` for the sources at store indices src[0 .. ns) (need[s] == 0: no receivers for s).
void find_gas_shares(const ParticleView& p, const Box& box, const HostGasGrid& g,
                     const uint32_t* src, const uint8_t* need, std::size_t ns, int nb,
                     GasShares& out);

// The radius within which each point at[s] has its nb + 1 nearest gas particles of grid g (on its
// particles p), a little beyond the (nb + 1)-th so that one at the same distance with a lower id
// is inside; kAllGas where g holds fewer. Across MPI ranks a source's nb nearest over every
// rank's gas lie within the radius of its own rank's (feedback/feedback_ranks.cpp, the cold
// phase).
constexpr double kAllGas = 1e300;
std::vector<double> gas_reach(const ParticleView& p, const Box& box, const HostGasGrid& g,
                              const std::vector<Vec3d>& at, int nb);

// The (receiver, slot s nb + k) pairs of the shares sorted by receiver, then slot: receiver run r
// is pairs[first[r] .. first[r + 1]), all with the receiver pairs[first[r]].first.
struct ReceiverRuns {
  std::vector<std::pair<uint32_t, uint64_t>> pairs;
  std::vector<std::size_t> first;
  std::size_t count() const { return first.empty() ? 0 : first.size() - 1; }
};

ReceiverRuns receiver_runs(const GasShares& sh);

}  // namespace mpsph
