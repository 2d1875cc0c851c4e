// timing.txt's lines of the MPI ranks' backends (run/mpi/rank_backend.cpp, the host-staged and
// CPU ranks; run/mpi/gpu_rank_link.cpp, the device-resident GPU ranks): their stages split into
// halos, passes and locally essential trees, and what the halos and the decomposition did.
#pragma once

#include <algorithm>
#include <string>

#include "parallel/domain_decomposition.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

// Seconds of the stages' parts on this rank, summed over the run (the halos of a stage are its
// total less its passes).
struct RankParts {
  double decomposition = 0, order = 0, h = 0, h_passes = 0, pairs = 0, pairs_passes = 0;
  // Of the decomposition: the decompositions that re-cut the domains (cuts and migration), and
  // of those the cuts alone (device-resident ranks: key cube, keys, search_cuts).
  double recuts = 0, recut_cuts = 0;
  // Of the decomposition (device-resident ranks): the owners and the decision (keys, owners,
  // loads, the cost weights, keep or re-cut), and the migration (the plan, the particles' records
  // sent and received, the leavers marked).
  double owners = 0, migration = 0;
  // Of the passes: this rank's own work, without the wait for the slowest rank at their end.
  double h_passes_own = 0, pairs_passes_own = 0;
  double tree = 0, let_select = 0, let_exchange = 0, walk = 0;
  // Of both halos (device-resident ranks only): boxes, selection (of which the rank's own GPU
  // work, without the wait for the other ranks in the exchange plan), records.
  double halo_boxes = 0, halo_select = 0, halo_select_own = 0, halo_records = 0;
  // Of the boxes: domain boxes, search boxes, their exchange (DistributedSphReport).
  double halo_domains = 0, halo_search = 0, halo_box_exchange = 0;
  double halo_domains_grow = 0;  // of the domain boxes: grown on the GPU, copied to the host
};

// Sums over the run on this rank, and what is the same on every rank (re-cuts, imbalance).
struct RankCounts {
  double ghosts = 0, local_gas = 0, let_bytes = 0, h_rounds = 0;
  // The halos' boxes (device-resident ranks): domain boxes gathered, search boxes sent.
  double domain_boxes = 0, search_boxes_sent = 0;
  double recuts = 0, decompositions = 0, migrated = 0, imbalance_max = 0;
  // One decomposition's decision and migration.
  void add(const DecompositionReport& d) {
    recuts += d.recut ? 1.0 : 0.0;
    decompositions += 1.0;
    migrated += double(d.sent);
    imbalance_max = std::max(imbalance_max, d.imbalance);
  }
};

struct RankTimingText {
  std::string title;       // "MPI ranks: P, <title>; stage parts, ..."
  const char* order_part;  // the name of the second part (the order stage's work)
  const char* ghosts_of;   // "active local gas" or "local gas"
};

// Every part per step over `steps`, the largest over the ranks (mean over them); with `step2`
// (the parts as they were at the order stage of step 2) and steady_steps > 0, also per step over
// the steady_steps steps from step 2 on (collective).
std::string rank_timing_notes(const MpiComm& comm, const RankTimingText& text,
                              const RankParts& parts, const RankParts* step2, long steady_steps,
                              const RankCounts& counts, double max_imbalance, long steps);

// timing.txt's line of the decomposition's cost weights (collective): their smallest and largest
// over the ranks, picoseconds per particle's gravity and per SPH neighbour when `measured`
// (mpi.cost_weights: measured, from the fourth order stage on), else mpi.gravity_cost and 1.
std::string cost_weights_note(const MpiComm& comm, bool measured, const CostWeights& w);

}  // namespace mpsph
