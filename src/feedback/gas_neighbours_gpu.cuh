// Device functions of the gas-neighbour search shared by the feedback and cold-phase kernels
// (CUDA translation units only; gas_neighbours_gpu.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "feedback/feedback_grid_kern.hpp"
#include "feedback/feedback_kern.hpp"
#include "feedback/gas_neighbours_gpu.hpp"

namespace mpsph {

// Slot s of nb shares: no receivers yet (recv kNoReceiver), slot values s nb + k.
__device__ inline void clear_gas_shares(std::size_t s, int nb, uint32_t* recv, uint32_t* slot) {
  for (int k = 0; k < nb; ++k)
    recv[s * nb + k] = kNoReceiver, slot[s * nb + k] = uint32_t(s * nb + k);
}

// The receivers and weights of the source at x in slot s (K >= nb: the thread's neighbour
// buffer), as find_gas_shares() of gas_neighbours.cpp; rho, h: per-slot outputs or null.
// Returns the number of receivers.
template <int K>
__device__ int gather_gas_shares(const ParticleView& p, const Box& box, const FeedbackGrid& g,
                                 const Vec3d& x, std::size_t s, int nb, uint32_t* recv,
                                 double* weight, double* rho, double* h) {
  if (g.n == 0) return 0;
  double d2[K + 1];
  uint32_t jj[K + 1];
  uint64_t ids[K + 1];
  NeighbourSet set{0, nb + 1, d2, jj, ids};
  feedback_neighbours(g, box, p.pos, p.id, x, set);
  const int n =
      feedback_weights(p, set, nb, weight + s * nb, rho ? rho + s : nullptr, h ? h + s : nullptr);
  for (int k = 0; k < n; ++k) recv[s * nb + k] = set.j[k];
  return n;
}

// True at the first pair of each receiver's run in the sorted pairs.
__device__ inline bool receiver_run_starts(std::size_t q, std::size_t n_pairs,
                                           const uint32_t* recv) {
  return q < n_pairs && recv[q] != kNoReceiver && (q == 0 || recv[q - 1] != recv[q]);
}

// The end (one past the last pair) of the receiver run that starts at q.
__device__ inline std::size_t receiver_run_end(std::size_t q, std::size_t n_pairs,
                                               const uint32_t* recv) {
  std::size_t end = q;
  while (end < n_pairs && recv[end] == recv[q]) ++end;
  return end;
}

}  // namespace mpsph
