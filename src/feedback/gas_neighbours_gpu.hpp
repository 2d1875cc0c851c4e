// The gas neighbours of non-gas particles on the device (defined in gas_neighbours_gpu.cu, CUDA
// builds only): what SSP feedback (feedback_gpu.cu) and the cold phase (cloud_gas_exchange_gpu.cu)
// share, as gas_neighbours.hpp on the CPU. The gas grid of build_gas_grid() is built on the device
// (bounding box and mean log h reduced in a fixed order, keys sorted with CUB), a source slot s
// gathers its N_B receivers and weights (gather_gas_shares in gas_neighbours_gpu.cuh), and the
// (receiver, slot) pairs are sorted by receiver with a stable radix sort, so every receiver takes
// its shares in slot order, as on the CPU. Nothing synchronises with the host.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "feedback/feedback_grid_kern.hpp"

namespace mpsph {

constexpr uint32_t kNoReceiver = 0xFFFFFFFFu;

class GpuGasNeighbours {
 public:
  GpuGasNeighbours();
  ~GpuGasNeighbours();
  GpuGasNeighbours(const GpuGasNeighbours&) = delete;
  GpuGasNeighbours& operator=(const GpuGasNeighbours&) = delete;

  // The grid over the gas [0, n_gas) of type kGas (asynchronous; call reserve_slots() first, so
  // that no buffer is reallocated after a launch); grid()->n == 0 without gas. Cell width as
  // build_gas_grid(): `cell` when > 0, else the geometric mean of the gas smoothing lengths.
  // Within a cell the gas is in ascending store index (the sort is stable).
  void build_grid(const ParticleView& d, const Box& box, double cell = 0.0);
  const FeedbackGrid* grid() const { return static_cast<const FeedbackGrid*>(grid_); }

  // Buffers for n_slots sources with nb shares each: receiver and slot value of every share
  // (unsorted), its weight, and per slot the kernel sum rho and h* (gas_neighbours.hpp GasShares).
  void reserve_slots(std::size_t n_slots, int nb);
  uint32_t* recv_in() { return static_cast<uint32_t*>(pair_key_in_); }
  uint32_t* slot_in() { return static_cast<uint32_t*>(pair_val_in_); }
  double* weight() { return static_cast<double*>(weight_); }
  double* rho() { return static_cast<double*>(rho_); }
  double* h() { return static_cast<double*>(h_); }

  // Sorts the n_pairs (receiver, slot) pairs by receiver, stably: recv() ascending (kNoReceiver
  // last), slot() the slot values alongside. Every receiver is below n_gas.
  void sort_pairs(std::size_t n_pairs, std::size_t n_gas);
  const uint32_t* recv() const { return static_cast<const uint32_t*>(pair_key_); }
  const uint32_t* slot() const { return static_cast<const uint32_t*>(pair_val_); }

 private:
  void reserve_temp(std::size_t n_gas, std::size_t n_pairs);

  void* grid_ = nullptr;     // FeedbackGrid
  void* partial_ = nullptr;  // per-block partials of the grid's reduction
  void* keys_in_ = nullptr;  // uint64 gas cell keys, then the sorted ones in keys_
  void* keys_ = nullptr;
  void* idx_in_ = nullptr;  // uint32 gas indices, then sorted in idx_
  void* idx_ = nullptr;
  void* weight_ = nullptr;  // double per share
  void* rho_ = nullptr;     // double per slot
  void* h_ = nullptr;       // double per slot
  void* pair_key_in_ = nullptr;
  void* pair_key_ = nullptr;
  void* pair_val_in_ = nullptr;
  void* pair_val_ = nullptr;
  void* temp_ = nullptr;  // CUB temporary storage
  std::size_t temp_bytes_ = 0, gas_cap_ = 0, slot_cap_ = 0, pair_cap_ = 0;
};

}  // namespace mpsph
