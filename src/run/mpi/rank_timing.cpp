#include "run/mpi/rank_timing.hpp"

#include <mpi.h>

#include <cstdio>
#include <vector>

namespace mpsph {

namespace {

// One line of the parts: its name, its seconds, and whether it is printed only where some rank
// measured it (the device-resident ranks' halo parts).
struct Part {
  const char* name;
  double seconds;
  bool where_measured;
};

std::vector<Part> parts_of(const RankParts& t, const RankTimingText& text) {
  return {
      {"decomposition + migration", t.decomposition, false},
      {"  of which re-cuts", t.recuts, false},
      {"    of which the cuts", t.recut_cuts, true},
      {"  of which the owners and the decision", t.owners, true},
      {"  of which the migration", t.migration, true},
      {text.order_part, t.order, false},
      {"smoothing lengths: halos", t.h - t.h_passes, false},
      {"smoothing lengths: passes", t.h_passes, false},
      {"  of which this rank's own work", t.h_passes_own, false},
      {"density + forces: halos", t.pairs - t.pairs_passes, false},
      {"density + forces: passes", t.pairs_passes, false},
      {"  of which this rank's own work", t.pairs_passes_own, false},
      {"gravity: local tree", t.tree, false},
      {"gravity: LET selection", t.let_select, false},
      {"gravity: LET exchange", t.let_exchange, false},
      {"gravity: walk", t.walk, false},
      {"  of both halos: boxes", t.halo_boxes, true},
      {"    domain boxes (grown, gathered)", t.halo_domains, true},
      {"      of which grown (GPU, to the host)", t.halo_domains_grow, true},
      {"    search boxes (grown, by rank)", t.halo_search, true},
      {"    search boxes exchanged", t.halo_box_exchange, true},
      {"  of both halos: selection", t.halo_select, true},
      {"    of which this rank's GPU work", t.halo_select_own, true},
      {"  of both halos: records", t.halo_records, true},
  };
}

std::vector<double> seconds_of(const std::vector<Part>& parts) {
  std::vector<double> v;
  for (const Part& p : parts) v.push_back(p.seconds);
  return v;
}

}  // namespace

std::string rank_timing_notes(const MpiComm& comm, const RankTimingText& text,
                              const RankParts& parts, const RankParts* step2, long steady_steps,
                              const RankCounts& counts, double max_imbalance, long steps) {
  const std::vector<Part> lines = parts_of(parts, text);
  std::vector<double> v = seconds_of(lines);
  const std::size_t n_parts = v.size();
  const bool steady = step2 && steady_steps > 0;
  if (steady) {
    const std::vector<double> before = seconds_of(parts_of(*step2, text));
    for (std::size_t k = 0; k < n_parts; ++k) v.push_back(v[k] - before[k]);
  }
  std::vector<double> mx(v.size()), mean = v;
  MPI_Allreduce(v.data(), mx.data(), int(v.size()), MPI_DOUBLE, MPI_MAX, comm.get());
  comm.sum(mean);
  for (double& x : mean) x /= double(comm.size());
  const double ghosts = comm.sum(counts.ghosts), gas = comm.sum(counts.local_gas);
  const double let_bytes = comm.sum(counts.let_bytes), migrated = comm.sum(counts.migrated);
  const double domain_boxes = comm.sum(counts.domain_boxes),
               search_sent = comm.sum(counts.search_boxes_sent);
  const double per = steps > 0 ? 1e3 / double(steps) : 0.0;
  const double per_steady = steady ? 1e3 / double(steady_steps) : 0.0;
  std::string out =
      "\nMPI ranks: " + std::to_string(comm.size()) + ", " + text.title +
      "; stage parts, ms per step, largest over the ranks (mean over them)" +
      (steady ? ", over all steps and over steps 2 to " + std::to_string(steady_steps + 1)
              : std::string()) +
      ":\n";
  char line[400];
  for (std::size_t k = 0; k < n_parts; ++k) {
    if (lines[k].where_measured && mx[k] <= 0.0) continue;
    int len = std::snprintf(line, sizeof line, "  %-36s %12.3f (%.3f)", lines[k].name, mx[k] * per,
                            mean[k] * per);
    if (steady && len > 0 && std::size_t(len) < sizeof line)
      std::snprintf(line + len, sizeof line - std::size_t(len), "   steps 2+: %10.3f (%.3f)",
                    mx[n_parts + k] * per_steady, mean[n_parts + k] * per_steady);
    out += line;
    out += "\n";
  }
  // The re-cut rule's effect (the decisions and the imbalance are the same on every rank).
  std::snprintf(line, sizeof line,
                "  ghosts per %s particle (density halo): %.3f\n"
                "  smoothing-length halo rounds: %.0f in %ld steps\n"
                "  LET bytes sent per step, all ranks: %.4g\n"
                "  domain re-cuts: %.0f of %.0f decompositions (mpi.max_imbalance %g); largest "
                "cost imbalance after migration: %.4f\n"
                "  particles migrated per step, all ranks: %.4g\n",
                text.ghosts_of, gas > 0 ? ghosts / gas : 0.0, counts.h_rounds, steps,
                steps > 0 ? let_bytes / double(steps) : 0.0, counts.recuts, counts.decompositions,
                max_imbalance, counts.imbalance_max, steps > 0 ? migrated / double(steps) : 0.0);
  out += line;
  if (domain_boxes > 0.0 && steps > 0) {
    std::snprintf(line, sizeof line,
                  "  SPH halo boxes per step, all ranks: %.4g domain boxes gathered, %.4g search "
                  "boxes sent\n",
                  domain_boxes / double(steps), search_sent / double(steps));
    out += line;
  }
  return out;
}

std::string cost_weights_note(const MpiComm& comm, bool measured, const CostWeights& w) {
  std::vector<double> lo = {w.gravity, w.neighbour, w.walk}, hi = lo;
  comm.min(lo);
  comm.max(hi);
  char line[480];
  if (measured)
    std::snprintf(line, sizeof line,
                  "  cost weights (mpi.cost_weights: measured), smallest to largest over the "
                  "ranks: ps per unit of a particle's walk share (walk_cost) %.4g to %.4g, ps per "
                  "particle not walked %.0f to %.0f, ps per SPH neighbour %.0f to %.0f\n",
                  lo[2], hi[2], lo[0], hi[0], lo[1], hi[1]);
  else
    std::snprintf(line, sizeof line,
                  "  cost weights: %.0f per particle's gravity (mpi.gravity_cost), 1 per SPH "
                  "neighbour (mpi.cost_weights: model, or not yet measured)\n",
                  w.gravity);
  return line;
}

}  // namespace mpsph
