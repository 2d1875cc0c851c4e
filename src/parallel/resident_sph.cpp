#include "parallel/resident_sph.hpp"

#ifdef MPSPH_HAVE_CUDA

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "parallel/device_all_to_all.hpp"
#include "parallel/particle_exchange.hpp"

namespace mpsph {

namespace {

// The records of `what` of the plan's members to their ranks, through the host and MPI (into
// `host`) or GPU to GPU (`device`); returns the ghosts' records, in rank order.
ResidentSph::Ghosts send_records(ResidentSph& sph, ResidentSph::Halo what, const ExchangePlan& plan,
                                 const MpiComm& comm, DeviceAllToAll* device,
                                 std::vector<unsigned char>& host) {
  const std::size_t stride = sph.bytes(what);
  ResidentSph::Ghosts g{nullptr, plan.n_recv(), device != nullptr};
  if (device) {
    std::vector<std::size_t> send_off(plan.send_offsets), recv_off(plan.recv_offsets);
    for (std::size_t& b : send_off) b *= stride;
    for (std::size_t& b : recv_off) b *= stride;
    g.data = device->exchange(sph.pack_on_device(what, plan.send_index), send_off, recv_off);
    return g;
  }
  std::vector<unsigned char> records;
  sph.pack(what, plan.send_index, records);
  host.resize(plan.n_recv() * stride);
  comm.all_to_all_records(records.data(), plan.send_offsets, host.data(), plan.recv_offsets,
                          stride);
  g.data = host.data();
  return g;
}

// The other ranks' domain boxes (rank r's at [offsets[r], offsets[r + 1]), none of this rank's).
struct OtherDomains {
  std::vector<SearchBox> boxes;
  std::vector<std::size_t> offsets;
  bool gathered = false;
};

// Every rank's domain boxes to every rank; `d` receives the other ranks'.
void gather_domains(const ResidentSph& sph, const Box& box, const MpiComm& comm, OtherDomains& d,
                    DistributedSphReport& rep) {
  const std::size_t P = std::size_t(comm.size()), me = std::size_t(comm.rank());
  const double t0 = wall_seconds();
  const std::vector<SearchBox> mine = sph.domain_boxes(box);
  rep.halo_domains_grow_s += wall_seconds() - t0;
  rep.domain_boxes += double(mine.size());
  d.boxes = comm.all_gather(mine, &d.offsets);
  const std::size_t own = d.offsets[me + 1] - d.offsets[me];
  d.boxes.erase(d.boxes.begin() + std::ptrdiff_t(d.offsets[me]),
                d.boxes.begin() + std::ptrdiff_t(d.offsets[me + 1]));
  for (std::size_t r = me + 1; r <= P; ++r) d.offsets[r] -= own;
  d.gathered = true;
}

// One halo (the exchange of parallel/sph_halo.hpp): every rank's domain boxes to every rank
// (unless `domains` holds them already: the smoothing-length rounds of one step, whose domain
// boxes cover the same positions without a reach, gather them once); to each other rank this
// rank's search boxes near its domain; the local gas each other rank needs by the rule against
// the search boxes it sent, and the records of `what` of those, exchanged. Returns the plan;
// `ghosts` receives the ghosts' records (in rank order; `host` holds them when they come through
// the host).
ExchangePlan exchange_halo(ResidentSph& sph, ResidentSph::Halo what, const Box& box,
                           const MpiComm& comm, DeviceAllToAll* device,
                           std::vector<unsigned char>& host, ResidentSph::Ghosts& ghosts,
                           DistributedSphReport& rep, OtherDomains& domains) {
  const double t0 = wall_seconds();
  const std::size_t P = std::size_t(comm.size());
  if (!domains.gathered) gather_domains(sph, box, comm, domains, rep);
  const double t_domains = wall_seconds();
  sph.grow_search_boxes(box);
  const std::vector<std::vector<SearchBox>> near =
      sph.search_boxes_near(domains.boxes, domains.offsets, box);
  const double t_search = wall_seconds();
  std::vector<SearchBox> send;
  std::vector<std::size_t> send_off(P + 1, 0);
  for (std::size_t r = 0; r < P; ++r) {
    send.insert(send.end(), near[r].begin(), near[r].end());
    send_off[r + 1] = send.size();
  }
  rep.search_boxes_sent += double(send.size());
  std::vector<std::size_t> offsets;
  const std::vector<SearchBox> remote = comm.all_to_all(send, send_off, &offsets);
  const double t1 = wall_seconds();
  rep.halo_boxes_s += t1 - t0;
  rep.halo_domains_s += t_domains - t0;
  rep.halo_search_s += t_search - t_domains;
  rep.halo_box_exchange_s += t1 - t_search;
  // Every rank's boxes at once (this rank receives none of its own).
  std::vector<std::vector<uint32_t>> to_rank = sph.needed_by_all(remote, offsets, box);
  rep.halo_select_own_s += wall_seconds() - t1;  // needed_by_all waits for its copies
  ExchangePlan plan = make_exchange_plan(to_rank, comm);
  const double t2 = wall_seconds();
  rep.halo_select_s += t2 - t1;
  ghosts = send_records(sph, what, plan, comm, device, host);
  rep.halo_records_s += wall_seconds() - t2;
  return plan;
}

}  // namespace

void resident_smoothing_lengths(ResidentSph& sph, const Box& box, const SphParams& p,
                                const MpiComm& comm, DistributedSphReport& rep, ResidentHalo& halo,
                                DeviceAllToAll* device) {
  const double t_begin = wall_seconds();
  rep.h_passes_s = rep.h_own_s = 0.0;
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
  sph.start_smoothing_lengths(guess, /*reach=*/true);  // the first round by the density's rule
  halo.serves_density = false;

  std::vector<unsigned char> host;
  ResidentSph::Ghosts ghosts;
  OtherDomains domains;  // the rounds' (the positions do not move between them)
  for (int round = 1;; ++round) {
    if (round > kMaxHaloRounds)
      throw Error("sph: the smoothing-length halo did not settle in " +
                  std::to_string(kMaxHaloRounds) + " rounds");
    rep.h_rounds = round;
    ExchangePlan plan =
        exchange_halo(sph, ResidentSph::Halo::h, box, comm, device, host, ghosts, rep, domains);
    rep.ghosts_h = plan.n_recv();
    // Fewer gas particles at hand than one neighbourhood: widen before searching.
    const bool short_of_gas = n_gl + plan.n_recv() < k;
    std::size_t left = 0;
    const double t_pass = wall_seconds();
    rep.h_own_s += on_every_rank(
        comm, [&] { left = sph.smoothing_lengths(ghosts, box, p, short_of_gas, edge); });
    rep.h_passes_s += wall_seconds() - t_pass;
    const bool done = !comm.any(left > 0);
    if (round == 1) {
      halo.plan = std::move(plan);
      halo.serves_density = done;
    }
    if (done) break;
  }
  rep.h_s = wall_seconds() - t_begin;
}

void resident_density_forces(ResidentSph& sph, const Box& box, const SphParams& p,
                             const EosParams& eos, const MpiComm& comm, DistributedSphReport& rep,
                             const ResidentHalo& halo, DeviceAllToAll* device) {
  const double t_begin = wall_seconds();
  sph.start_density();
  std::vector<unsigned char> host;
  ResidentSph::Ghosts ghosts;
  ExchangePlan own;
  const ExchangePlan* plan = &halo.plan;
  if (halo.serves_density) {
    const double t_records = wall_seconds();
    ghosts = send_records(sph, ResidentSph::Halo::density, halo.plan, comm, device, host);
    rep.halo_records_s += wall_seconds() - t_records;
  } else {
    OtherDomains domains;  // with the gas's reach: gathered anew
    own = exchange_halo(sph, ResidentSph::Halo::density, box, comm, device, host, ghosts, rep,
                        domains);
    plan = &own;
  }
  rep.ghosts_pairs = plan->n_recv();
  double t_pass = wall_seconds();
  rep.pairs_own_s = on_every_rank(comm, [&] { sph.density(ghosts, box, p, eos); });
  rep.pairs_passes_s = wall_seconds() - t_pass;
  // What force_particle() reads of a neighbour, from the ghosts' owners.
  const double t_refresh = wall_seconds();
  const ResidentSph::Ghosts refreshed =
      send_records(sph, ResidentSph::Halo::refresh, *plan, comm, device, host);
  rep.halo_records_s += wall_seconds() - t_refresh;
  t_pass = wall_seconds();
  rep.pairs_own_s += on_every_rank(comm, [&] { sph.forces(refreshed, box, p); });
  rep.pairs_passes_s += wall_seconds() - t_pass;
  rep.pairs_s = wall_seconds() - t_begin;
}

}  // namespace mpsph

#endif
