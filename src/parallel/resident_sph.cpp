#include "parallel/resident_sph.hpp"

#ifdef MPSPH_HAVE_CUDA

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "parallel/particle_exchange.hpp"

namespace mpsph {

namespace {

// Search boxes per rank (as parallel/sph_halo.cpp's halo_members).
constexpr std::size_t kMaxBoxes = 512;

// The plan's records (`stride` bytes each, in send_index order) to their ranks; `out` receives
// the records of the plan's ghosts, in rank order.
void exchange_records(const std::vector<unsigned char>& records, std::size_t stride,
                      const ExchangePlan& plan, const MpiComm& comm,
                      std::vector<unsigned char>& out) {
  out.resize(plan.n_recv() * stride);
  comm.all_to_all_records(records.data(), plan.send_offsets, out.data(), plan.recv_offsets, stride);
}

// One halo: this rank's searchers' boxes to every rank, the local gas each other rank needs by
// the rule, and the records of `what` of those, exchanged. Returns the plan; `ghosts` receives
// the records of the ghosts (in rank order).
ExchangePlan exchange_halo(ResidentSph& sph, ResidentSph::Halo what, const Box& box,
                           const MpiComm& comm, std::vector<unsigned char>& ghosts) {
  std::vector<std::size_t> offsets;
  const std::vector<SearchBox> all = comm.all_gather(sph.search_boxes(box, kMaxBoxes), &offsets);
  std::vector<std::vector<uint32_t>> to_rank(std::size_t(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank() || offsets[std::size_t(r)] == offsets[std::size_t(r) + 1]) continue;
    to_rank[std::size_t(r)] = sph.needed_by(
        std::vector<SearchBox>(all.begin() + std::ptrdiff_t(offsets[std::size_t(r)]),
                               all.begin() + std::ptrdiff_t(offsets[std::size_t(r) + 1])),
        box);
  }
  ExchangePlan plan = make_exchange_plan(to_rank, comm);
  std::vector<unsigned char> records;
  sph.pack(what, plan.send_index, records);
  exchange_records(records, sph.bytes(what), plan, comm, ghosts);
  return plan;
}

}  // namespace

void resident_smoothing_lengths(ResidentSph& sph, const Box& box, const SphParams& p,
                                const MpiComm& comm, DistributedSphReport& rep) {
  const double t_begin = wall_seconds();
  rep.h_passes_s = 0.0;
  const std::size_t n_gl = sph.n_local_gas();
  rep.n_local_gas = rep.n_active_gas = n_gl;
  const std::size_t k = std::size_t(p.n_neighbours) + 1;
  const uint64_t n_gas_total = comm.sum(uint64_t(n_gl));
  if (n_gas_total < k)
    throw Error("sph.n_neighbours = " + std::to_string(p.n_neighbours) + " needs at least " +
                std::to_string(k) + " gas particles; there are " + std::to_string(n_gas_total));

  // The guess for particles without h (the start-up), from this rank's gas; the extent of all
  // gas for a rank that has too little of it at hand to search.
  const ResidentSph::GasBounds b = sph.gas_bounds();
  std::vector<double> lo = {b.lo.x, b.lo.y, b.lo.z}, hi = {b.hi.x, b.hi.y, b.hi.z};
  const double guess = b.without_h > 0 ? first_search_radius(b.lo, b.hi, n_gl, k) : 0.0;
  comm.min(lo);
  comm.max(hi);
  const double edge = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  sph.start_smoothing_lengths(guess);

  std::vector<unsigned char> ghosts;
  for (int round = 1;; ++round) {
    if (round > kMaxHaloRounds)
      throw Error("sph: the smoothing-length halo did not settle in " +
                  std::to_string(kMaxHaloRounds) + " rounds");
    rep.h_rounds = round;
    const ExchangePlan plan = exchange_halo(sph, ResidentSph::Halo::h, box, comm, ghosts);
    rep.ghosts_h = plan.n_recv();
    // Fewer gas particles at hand than one neighbourhood: widen before searching.
    const bool short_of_gas = n_gl + plan.n_recv() < k;
    std::size_t left = 0;
    const double t_pass = wall_seconds();
    on_every_rank(comm, [&] {
      left = sph.smoothing_lengths(ghosts.data(), plan.n_recv(), box, p, short_of_gas, edge);
    });
    rep.h_passes_s += wall_seconds() - t_pass;
    if (!comm.any(left > 0)) break;
  }
  rep.h_s = wall_seconds() - t_begin;
}

void resident_density_forces(ResidentSph& sph, const Box& box, const SphParams& p,
                             const EosParams& eos, const MpiComm& comm, DistributedSphReport& rep) {
  const double t_begin = wall_seconds();
  sph.start_density();
  std::vector<unsigned char> ghosts;
  const ExchangePlan plan = exchange_halo(sph, ResidentSph::Halo::density, box, comm, ghosts);
  rep.ghosts_pairs = plan.n_recv();
  double t_pass = wall_seconds();
  on_every_rank(comm, [&] { sph.density(ghosts.data(), plan.n_recv(), box, p, eos); });
  rep.pairs_passes_s = wall_seconds() - t_pass;
  // What force_particle() reads of a neighbour, from the ghosts' owners.
  std::vector<unsigned char> records;
  sph.pack(ResidentSph::Halo::refresh, plan.send_index, records);
  exchange_records(records, sph.bytes(ResidentSph::Halo::refresh), plan, comm, ghosts);
  t_pass = wall_seconds();
  on_every_rank(comm, [&] { sph.forces(ghosts.data(), plan.n_recv(), box, p); });
  rep.pairs_passes_s += wall_seconds() - t_pass;
  rep.pairs_s = wall_seconds() - t_begin;
}

}  // namespace mpsph

#endif
