#include "run/mpi/gpu_rank_link.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/select_indices.hpp"
#include "core/wall_clock.hpp"
#include "parallel/distributed_gravity.hpp"
#include "parallel/distributed_sph.hpp"
#include "parallel/particle_exchange.hpp"
#include "parallel/resident_sph.hpp"
#include "run/longest_groups.hpp"
#include "run/mpi/rank_timing.hpp"
#include "run/ranks.hpp"

#ifdef MPSPH_HAVE_CUDA
#include "core/device_particles.hpp"
#include "parallel/device_all_to_all.hpp"
#include "run/rank_owners.hpp"
#include "run/step_reduction_gpu.hpp"
#endif

namespace mpsph {

#ifdef MPSPH_HAVE_CUDA

namespace {

// Most bytes of particle records one rank sends to all ranks in one round of a migration: bounds
// the host buffers of a large one (a recut can move most of a rank's particles).
constexpr std::size_t kMaxExchangeBytes = std::size_t(1) << 30;
// The same GPU to GPU: the bytes one rank receives in a round (its receive buffer's size).
constexpr std::size_t kMaxDeviceExchangeBytes = std::size_t(1) << 28;

uint64_t sum_of(const std::vector<uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), uint64_t(0));
}

class GpuRankLink final : public GpuRanks {
 public:
  GpuRankLink(const StepContext& ctx, const MpiComm& comm, const DecompositionParams& d,
              GpuTransfers transfers)
      : box_(ctx.box),
        sph_(ctx.sph),
        eos_(ctx.eos),
        grav_(ctx.grav),
        G_(ctx.G),
        comm_(comm),
        decomposition_(d) {
    if (transfers == GpuTransfers::Host) {
      transfers_ = "through the host and MPI (mpi.gpu_transfers: host)";
      return;
    }
    device_.emplace(comm);
    if (device_->usable()) {
      transfers_ = "GPU to GPU through CUDA IPC (mpi.gpu_transfers: " +
                   std::string(gpu_transfers_name(transfers)) + ")";
      return;
    }
    if (transfers == GpuTransfers::Peer)
      throw Error("mpi.gpu_transfers: peer cannot work here: " + device_->reason() +
                  "; set mpi.gpu_transfers: host or auto (docs/mpi.md)");
    transfers_ =
        "through the host and MPI (mpi.gpu_transfers: auto; GPU to GPU cannot work here: " +
        device_->reason() + ")";
    device_.reset();
  }

  void check_box() override {
    try {
      check_gravity_across_ranks(grav_, box_);
    } catch (const Error& e) {
      throw NotAcrossRanks(e.what());  // every rank alike, before any output is written
    }
  }

  // Cut by count, on the host: rank 0's initial conditions reach the other ranks through MPI
  // from the host store, not through its GPU (the records of every field of every particle).
  void distribute(ParticleStore& s) override {
    const double t0 = wall_seconds();
    counts_.add(decomposition_.update(s, box_, {}, comm_));
    t_.decomposition += wall_seconds() - t0;
  }

  void migrate(DeviceParticles& d, std::array<std::size_t, kNumTypes + 1>& counts) override {
    // The parts from the order stage of step 2 on (the third order stage: the start-up's and
    // step 1's scatter the particles and find every h from scratch).
    if (++orders_ == 3) t_steady_ = t_;
    const double t0 = wall_seconds();
    const int me = comm_.rank();
    // The leaving particles by destination rank, in store order within each: the plan's
    // send_index and send_offsets. While the cuts stand, the GPU finds the owners; else (a recut)
    // the host does, from downloaded positions, types and counts.
    std::vector<std::vector<uint32_t>> to_rank(std::size_t(comm_.size()));
    std::vector<uint32_t> leaving;
    std::optional<DecompositionReport> rep;
    if (decomposition_.has_cuts()) {
      RankOwners o = owners_.find(d, box_, decomposition_.cube().lo, decomposition_.cube().edge,
                                  decomposition_.cuts().begin, me);
      // The weights of what this rank's particles cost it in the step that ended here, once that
      // was a steady one (from the fourth order stage: the start-up and step 1 find every h from
      // scratch).
      if (decomposition_.params().measured && orders_ >= 4)
        decomposition_.set_weights(measured_cost_weights(
            own_.gravity_s, sum_of(o.particles), sum_of(o.walk_units), own_.sph_s,
            sum_of(o.neighbours), decomposition_.params().weights));
      std::vector<double> loads = o.loads(decomposition_.params().weights);
      const double weight = std::accumulate(loads.begin(), loads.end(), 0.0);
      rep = decomposition_.keep_cuts(std::move(loads), weight, comm_);
      if (rep) {
        rep->sent = o.leaving.size();
        for (std::size_t k = 0; k < o.leaving.size(); ++k)
          to_rank[std::size_t(o.owner[k])].push_back(o.leaving[k]);
        leaving = std::move(o.leaving);
        counts = o.counts;
      }
    }
    if (!rep) rep = recut_on_device(d, to_rank, leaving, counts);
    counts_.add(*rep);
    own_ = {};
    const double t_migration = wall_seconds();
    t_.owners += t_migration - t0;
    const ExchangePlan plan = make_exchange_plan(to_rank, comm_);
    if (comm_.sum(uint64_t(leaving.size())) > 0) {
      if (device_)
        migrate_on_device(d, plan, counts);
      else
        migrate_through_host(d, plan, counts);
      owners_.mark_removed(d, leaving);
    }
    t_.migration += wall_seconds() - t_migration;
    const double spent = wall_seconds() - t0;
    if (rep->recut) decomposition_.note_recut_cost(spent, comm_), t_.recuts += spent;
    t_.decomposition += spent;
  }

  const KeyCube* sort_cube() const override {
    return decomposition_.has_cuts() ? &decomposition_.cube() : nullptr;
  }

  // Nothing is copied: gravity's host store only states the rank's particle count (the tree, its
  // target boxes and LETs live on the GPU, gravity/let_gpu.hpp).
  void after_order(const DeviceParticles& d) override {
    const double t0 = wall_seconds();
    size_mirror(d.size());
    t_.order += wall_seconds() - t0;
  }

  void smoothing_lengths(DeviceParticles& d) override {
    sph_report_ = DistributedSphReport{};
    resident_smoothing_lengths(sph(d), box_, sph_, comm_, sph_report_, halo_,
                               device_ ? &*device_ : nullptr);
    t_.h += sph_report_.h_s;
    t_.h_passes += sph_report_.h_passes_s;
    t_.h_passes_own += sph_report_.h_own_s;
    own_.sph_s += sph_report_.h_own_s;
    counts_.h_rounds += double(sph_report_.h_rounds);
  }

  void density_and_forces(DeviceParticles& d) override {
    resident_density_forces(sph(d), box_, sph_, eos_, comm_, sph_report_, halo_,
                            device_ ? &*device_ : nullptr);
    t_.pairs += sph_report_.pairs_s;
    t_.pairs_passes += sph_report_.pairs_passes_s;
    t_.pairs_passes_own += sph_report_.pairs_own_s;
    own_.sph_s += sph_report_.pairs_own_s;
    t_.halo_boxes += sph_report_.halo_boxes_s;
    t_.halo_domains += sph_report_.halo_domains_s;
    t_.halo_domains_grow += sph_report_.halo_domains_grow_s;
    counts_.domain_boxes += sph_report_.domain_boxes;
    counts_.search_boxes_sent += sph_report_.search_boxes_sent;
    t_.halo_search += sph_report_.halo_search_s;
    t_.halo_box_exchange += sph_report_.halo_box_exchange_s;
    t_.halo_select += sph_report_.halo_select_s;
    t_.halo_select_own += sph_report_.halo_select_own_s;
    t_.halo_records += sph_report_.halo_records_s;
    counts_.ghosts += double(sph_report_.ghosts_pairs);
    counts_.local_gas += double(sph_report_.n_local_gas);
  }

  void gravity(DeviceParticles& d) override {
    if (!gravity_) {
      gravity_.emplace(make_resident_gpu_tree_with_sources(d, scratch_));
      gravity_->send_lets_through(device_ ? &*device_ : nullptr);
    }
    if (assume_previous_) gravity_->assume_previous();
    assume_previous_ = false;
    const DistributedGravityReport r = gravity_->compute(mirror_, grav_, G_, comm_);
    t_.tree += r.build_s;
    t_.let_select += r.let_select_s;
    t_.let_exchange += r.let_exchange_s;
    t_.walk += r.walk_s;
    walks_.add(r.walk);
    own_.gravity_s += r.walk_s;
    counts_.let_bytes += double(r.let_bytes_sent);
  }

  void reduce(StepScalars& s) override {
    s.dt = comm_.min(s.dt);
    std::vector<double> v = {s.conserved.kinetic,
                             s.conserved.thermal,
                             s.conserved.potential,
                             s.conserved.mass,
                             s.conserved.momentum.x,
                             s.conserved.momentum.y,
                             s.conserved.momentum.z,
                             s.conserved.angular_momentum.x,
                             s.conserved.angular_momentum.y,
                             s.conserved.angular_momentum.z};
    v.insert(v.end(), s.energy.begin(), s.energy.end());
    comm_.sum(v);
    Conserved& c = s.conserved;
    c.kinetic = v[0], c.thermal = v[1], c.potential = v[2], c.mass = v[3];
    c.momentum = {v[4], v[5], v[6]};
    c.angular_momentum = {v[7], v[8], v[9]};
    std::copy(v.begin() + 10, v.end(), s.energy.begin());
    uint32_t bits[2] = {s.health.bits, s.error_flags}, all[2] = {0, 0};
    MPI_Allreduce(bits, all, 2, MPI_UINT32_T, MPI_BOR, comm_.get());
    s.health.bits = all[0];
    s.error_flags = all[1];
  }

  uint64_t sum(uint64_t v) const override { return comm_.sum(v); }
  uint64_t max(uint64_t v) const override {
    uint64_t out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_MAX, comm_.get());
    return out;
  }
  void assume_previous_gravity() override { assume_previous_ = true; }

  void lend_scratch(DeviceScratch* scratch) override { scratch_ = scratch; }

  Memory device_memory() const override {
    Memory m;
    if (resident_sph_) {
      const ResidentSph::Memory s = resident_sph_->device_memory();
      m.sph_work = s.work, m.sph_passes = s.passes, m.sph_halos = s.halos;
    }
    if (gravity_) m.gravity = gravity_->device_bytes(), m.let = gravity_->let_device_bytes();
    if (device_) m.transfers = device_->device_bytes();
    return m;
  }

  unsigned common_field_groups(const ParticleStore& s, unsigned groups) const override {
    unsigned all = 0;
    MPI_Allreduce(&groups, &all, 1, MPI_UNSIGNED, MPI_BOR, comm_.get());
    if (comm_.any(s.size() == 0)) return kAllFieldGroups;
    for (unsigned g = 1; g <= kAllFieldGroups; g <<= 1) {
      if (all & g) continue;
      const uint64_t sig = s.field_group_signature(g);
      uint64_t lo = 0, hi = 0;
      MPI_Allreduce(&sig, &lo, 1, MPI_UINT64_T, MPI_MIN, comm_.get());
      MPI_Allreduce(&sig, &hi, 1, MPI_UINT64_T, MPI_MAX, comm_.get());
      if (lo != hi) all |= g;
    }
    return all;
  }

  static std::string indented(const std::string& line) { return line.empty() ? line : "  " + line; }
  // The walks' longest groups, each number the largest over the ranks.
  LongestGroups largest_over_ranks(const LongestGroups& mine) const {
    std::vector<double> v = {mine.last_s, mine.largest_s, mine.split};
    comm_.max(v);
    LongestGroups all;
    all.last_s = v[0], all.largest_s = v[1], all.split = v[2];
    return all;
  }

  // With the parts from step 2 on beside them (the start-up and step 1 scatter the particles from
  // rank 0 and find every h from scratch).
  std::string timing_notes(long steps) override {
    const RankTimingText text{"particles on the GPU of each rank", "host work after the sort",
                              "local gas"};
    return rank_timing_notes(comm_, text, t_, &t_steady_, orders_ >= 4 ? long(orders_) - 2 : 0,
                             counts_, decomposition_.params().max_imbalance, steps) +
           cost_weights_note(comm_, decomposition_.params().measured && orders_ >= 4,
                             decomposition_.params().weights) +
           indented(largest_over_ranks(walks_).note(", largest over the ranks")) +
           "  SPH halo records and locally essential trees: " + transfers_ + "\n";
  }

 private:
  ResidentSph& sph(DeviceParticles& d) {
    if (!resident_sph_) resident_sph_ = std::make_unique<ResidentSph>(d, scratch_);
    return *resident_sph_;
  }

  // New cuts on the GPU when they must be made anew (distribute() made the first ones, by count,
  // on the host): the key cube of every rank's positions, each particle's key and cost, and the
  // cuts by search_cuts with the sums below the candidate keys found on the GPU (16 passes of
  // one kernel over the keys) - the host's balanced_cuts sorted every key downloaded: ~1 s per
  // re-cut at 2e7 disk particles per rank on 2 H200s (2026-11-27). Then the owners as while the
  // cuts stand. Fills the leaving particles by destination (`to_rank`, store order within each)
  // and in store order (`leaving`), and the counts by type of the particles that stay.
  DecompositionReport recut_on_device(const DeviceParticles& d,
                                      std::vector<std::vector<uint32_t>>& to_rank,
                                      std::vector<uint32_t>& leaving,
                                      std::array<std::size_t, kNumTypes + 1>& counts) {
    const double t0 = wall_seconds();
    Vec3d lo, hi;
    owners_.bounds(d, lo, hi);
    const KeyCube cube = global_key_cube(lo, hi, box_, comm_);
    const CostWeights& w = decomposition_.params().weights;
    const double weight = owners_.keys_and_costs(d, box_, cube.lo, cube.edge, w);
    const DomainCuts cuts =
        search_cuts([&](const std::vector<uint64_t>& mids,
                        std::vector<double>& below) { owners_.weight_below(mids, below); },
                    weight, comm_, DeviceRankOwners::kMaxCandidates);
    t_.recut_cuts += wall_seconds() - t0;
    RankOwners o = owners_.find(d, box_, cube.lo, cube.edge, cuts.begin, comm_.rank());
    DecompositionReport rep = decomposition_.adopt(cube, cuts, o.loads(w), weight, comm_);
    rep.sent = o.leaving.size();
    for (std::size_t k = 0; k < o.leaving.size(); ++k)
      to_rank[std::size_t(o.owner[k])].push_back(o.leaving[k]);
    leaving = std::move(o.leaving);
    counts = o.counts;
    return rep;
  }

  // n entries of the mirror's fields that the host reads - type for a migration's arrivals, mass
  // for the size - with room to grow; the other fields stay empty. (A store of
  // every field would hold 0.9 kB per particle, and each growth would copy all of it: a rank of
  // 1e7 particles spent 0.44 s per step there, 2 H200s, 2026-11-27.)
  void size_mirror(std::size_t n) {
    auto fit = [n](auto& v) {
      if (v.capacity() < n) v.reserve(n + n / 4);
      v.resize(n);
    };
    fit(mirror_.mass), fit(mirror_.type);
  }

  // The plan's particles with every held field to their ranks through the host and MPI; the
  // arrivals go after the rank's particles, round by round, and into `counts` by type.
  void migrate_through_host(DeviceParticles& d, const ExchangePlan& plan,
                            std::array<std::size_t, kNumTypes + 1>& counts) {
    std::vector<unsigned char> records;
    d.pack(plan.send_index, records);
    const std::size_t stride = d.record_bytes(), type_at = d.record_offset(Field::type);
    std::size_t at = d.size();
    exchange_records(records, plan.send_offsets, stride, [&](const std::vector<unsigned char>& in) {
      const std::size_t n_in = in.size() / stride;
      d.resize(at + n_in);
      d.unpack(in.data(), n_in, at);
      at += n_in;
      for (std::size_t k = 0; k < n_in; ++k)
        ++counts[std::min<std::size_t>(in[k * stride + type_at], kNumTypes)];
    });
  }

  // The same GPU to GPU (DeviceAllToAll), in rounds of at most kMaxDeviceExchangeBytes received
  // per rank (the receive buffer keeps its largest size): a re-cut that moved 1.2e6 disk
  // particles (0.5 GB of records) through the host took ~1.2 s per re-cut on 2 H200s.
  void migrate_on_device(DeviceParticles& d, const ExchangePlan& plan,
                         std::array<std::size_t, kNumTypes + 1>& counts) {
    const int P = comm_.size();
    const std::size_t stride = d.record_bytes(), first = d.size();
    const Rounds rounds = rounds_of(plan.send_offsets, kMaxDeviceExchangeBytes / stride);
    std::size_t at = first;
    for (uint64_t k = 0; k < rounds.count; ++k) {
      std::vector<uint32_t> index;
      std::vector<std::size_t> send_off(std::size_t(P) + 1, 0), recv_off(std::size_t(P) + 1, 0);
      for (int r = 0; r < P; ++r) {
        const auto [sb, se] = rounds.part(plan.send_offsets, r, k);
        index.insert(index.end(), plan.send_index.begin() + std::ptrdiff_t(sb),
                     plan.send_index.begin() + std::ptrdiff_t(se));
        send_off[std::size_t(r) + 1] = send_off[std::size_t(r)] + (se - sb) * stride;
        const auto [rb, re] = rounds.part(plan.recv_offsets, r, k);
        recv_off[std::size_t(r) + 1] = recv_off[std::size_t(r)] + (re - rb) * stride;
      }
      const unsigned char* in =
          device_->exchange(owners_.pack_records(d, index), send_off, recv_off);
      const std::size_t n_in = recv_off.back() / stride;
      d.resize(at + n_in);
      d.unpack_on_device(in, n_in, at);
      at += n_in;
    }
    // The arrivals' types, for the counts.
    size_mirror(at);
    d.download_range(mirror_, first, at - first, first, {Field::type});
    for (std::size_t i = first; i < at; ++i)
      ++counts[std::min<std::size_t>(mirror_.type[i], kNumTypes)];
  }

  // The rounds of an exchange of the ranges [off[r], off[r + 1]) to the ranks, each round at most
  // `records` records over all ranks (at least one per rank): their number, the same on every
  // rank (collective), and round k's part [b, e) of the range to (or from) rank r.
  struct Rounds {
    std::size_t per_round;
    uint64_t count;
    std::pair<std::size_t, std::size_t> part(const std::vector<std::size_t>& off, int r,
                                             uint64_t k) const {
      const std::size_t b = std::min(off[std::size_t(r)] + k * per_round, off[std::size_t(r) + 1]);
      return {b, std::min(b + per_round, off[std::size_t(r) + 1])};
    }
  };
  Rounds rounds_of(const std::vector<std::size_t>& off, std::size_t records) const {
    const int P = comm_.size();
    const std::size_t per_round = std::max<std::size_t>(1, records / std::size_t(P));
    std::size_t most = 0;
    for (int r = 0; r < P; ++r)
      most = std::max(most, off[std::size_t(r) + 1] - off[std::size_t(r)]);
    return {per_round, max(uint64_t((most + per_round - 1) / per_round))};
  }

  // Records [off[r], off[r + 1]) of `records` (`stride` bytes each) to rank r, in rounds of at
  // most kMaxExchangeBytes per rank (the same number on every rank); `take` gets the records each
  // round brought, in rank order (each source's records stay in their order over the rounds).
  template <class Take>
  void exchange_records(const std::vector<unsigned char>& records,
                        const std::vector<std::size_t>& off, std::size_t stride,
                        Take&& take) const {
    const int P = comm_.size();
    const Rounds rounds = rounds_of(off, kMaxExchangeBytes / stride);
    for (uint64_t round = 0; round < rounds.count; ++round) {
      std::vector<unsigned char> send;
      std::vector<std::size_t> send_off(std::size_t(P) + 1, 0);
      for (int r = 0; r < P; ++r) {
        const auto [b, e] = rounds.part(off, r, round);
        send.insert(send.end(), records.begin() + std::ptrdiff_t(b * stride),
                    records.begin() + std::ptrdiff_t(e * stride));
        send_off[std::size_t(r) + 1] = send_off[std::size_t(r)] + (e - b) * stride;
      }
      std::vector<std::size_t> recv_off;
      take(comm_.all_to_all(send, send_off, &recv_off));
    }
  }

  const Box& box_;
  SphParams sph_;
  EosParams eos_;
  GravityParams grav_;
  double G_;
  MpiComm comm_;
  DomainDecomposition decomposition_;
  DeviceRankOwners owners_;
  bool assume_previous_ = false;
  // Host copies of some fields of the rank's particles (device order; size_mirror).
  ParticleStore mirror_;
  DistributedSphReport sph_report_;
  ResidentHalo halo_;  // the smoothing lengths' first round, for the density stage
  std::unique_ptr<ResidentSph> resident_sph_;
  std::optional<DeviceAllToAll> device_;  // the halos GPU to GPU (mpi.gpu_transfers)
  std::string transfers_;                 // how the halos travel, for the timing notes
  DeviceScratch* scratch_ = nullptr;      // the backend's, lent to the SPH passes and the tree
  std::optional<DistributedGravity> gravity_;
  // This rank's own work since the last order stage (without waiting for other ranks), for its
  // measured cost weights: the gravity walk and the SPH passes, seconds.
  struct {
    double gravity_s = 0.0, sph_s = 0.0;
  } own_;
  LongestGroups walks_;
  RankParts t_, t_steady_;  // seconds on this rank: of the run, and up to step 2's order stage
  std::size_t orders_ = 0;
  RankCounts counts_;
};

}  // namespace

std::unique_ptr<GpuRanks> make_gpu_rank_link(const StepContext& ctx, const MpiComm& comm,
                                             const DecompositionParams& decomposition,
                                             GpuTransfers transfers) {
  return std::make_unique<GpuRankLink>(ctx, comm, decomposition, transfers);
}

#else

std::unique_ptr<GpuRanks> make_gpu_rank_link(const StepContext&, const MpiComm&,
                                             const DecompositionParams&, GpuTransfers) {
  throw Error("device-resident GPU ranks: this build has no CUDA (mpi.gpu_ranks: host)");
}

#endif

}  // namespace mpsph
