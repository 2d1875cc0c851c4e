// The owner rank of every particle of a device-resident MPI rank (run/gpu_ranks.hpp) under the
// domain cuts it keeps (parallel/domain_decomposition.hpp), computed on its GPU: the order keys in
// the decomposition's key cube, the owner of each key, the particles, their walk shares and cost
// neighbours (core/particle_cost.hpp) counted by owner, and the list of the particles that leave.
// Only the per-rank counts, the leavers and their owners come to the host: the decomposition no
// longer downloads every particle while its cuts stand. The same keys and owners as sfc_keys and
// DomainCuts::owner on the host, and whole-number counts: the loads under any cost weights
// (RankOwners::loads) are cost_weights' sums on the host, exactly.
//
// No MPI and no CUDA in this header; defined only in CUDA builds (rank_owners_gpu.cu).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/box.hpp"
#include "core/particle_cost.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

class DeviceParticles;

struct RankOwners {
  // Per rank: how many of this rank's particles it owns, how many of those were walked (walk_cost
  // > 0) and their walk units, and their cost neighbours.
  std::vector<uint64_t> particles, walked, walk_units, neighbours;
  std::vector<uint32_t> leaving;  // store indices (ascending) of the particles other ranks own
  std::vector<int> owner;         // the owner of each of them
  // The particles that stay, by type (the leavers counted as kRemoved, at kNumTypes).
  std::array<std::size_t, kNumTypes + 1> counts{};

  // Per rank: the cost (core/particle_cost.hpp) of this rank's particles it owns; exact sums.
  std::vector<double> loads(const CostWeights& w) const {
    std::vector<double> l(particles.size());
    for (std::size_t r = 0; r < l.size(); ++r)
      l[r] = summed_cost(particles[r], walked[r], walk_units[r], neighbours[r], w);
    return l;
  }
};

// The device work of the decomposition of one rank, with its scratch kept between order stages.
class DeviceRankOwners {
 public:
  DeviceRankOwners();
  ~DeviceRankOwners();
  DeviceRankOwners(const DeviceRankOwners&) = delete;
  DeviceRankOwners& operator=(const DeviceRankOwners&) = delete;

  // The owners of the particles of `d` under the cuts: rank r owns the keys
  // [cut_begin[r], cut_begin[r + 1]) (DomainCuts::begin) of the cube [cube_lo, cube_lo + edge)^3;
  // `me`: this rank.
  RankOwners find(const DeviceParticles& d, const Box& box, const Vec3d& cube_lo, double cube_edge,
                  const std::vector<uint64_t>& cut_begin, int me);
  // A re-cut on the device (with search_cuts, parallel/domain_decomposition.hpp): the bounds
  // [lo, hi] of the particles' positions (lo > hi: none); then each particle's key in `cube`
  // and cost under `w`, kept for weight_below, returning their sum (exact: whole numbers); then
  // below[j] = the cost of the particles with keys < mids[j], every j (mids in any order, at
  // most kMaxCandidates of them: one kernel bins each particle's cost among them).
  static constexpr std::size_t kMaxCandidates = 2048;
  void bounds(const DeviceParticles& d, Vec3d& lo, Vec3d& hi);
  double keys_and_costs(const DeviceParticles& d, const Box& box, const Vec3d& cube_lo,
                        double cube_edge, const CostWeights& w);
  void weight_below(const std::vector<uint64_t>& mids, std::vector<double>& below);

  // The records of every held field of the particles `index` of `d`, packed on the device (valid
  // until the next call): a migration GPU to GPU (run/mpi/gpu_rank_link.cpp).
  const unsigned char* pack_records(const DeviceParticles& d, const std::vector<uint32_t>& index);
  // Marks the particles `index` kRemoved (the order stage's sort puts them last).
  void mark_removed(DeviceParticles& d, const std::vector<uint32_t>& index);

  struct Scratch;

 private:
  std::unique_ptr<Scratch> s_;
};

}  // namespace mpsph
