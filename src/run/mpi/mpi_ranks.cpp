#include "run/mpi/mpi_ranks.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <numeric>

#include "parallel/mpi_comm.hpp"
#include "parallel/particle_exchange.hpp"
#include "run/mpi/rank_backend.hpp"

namespace mpsph {

namespace {

class MpiRanks final : public Ranks {
 public:
  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  // One rank runs as mpsph does (every backend and feature of the single process).
  bool distributed() const override { return comm_.size() > 1; }

  void broadcast(std::string& text) const override {
    uint64_t n = text.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm_.get());
    if (n > uint64_t(INT_MAX)) throw Error("MPI: a broadcast text of more than 2^31 - 1 bytes");
    text.resize(std::size_t(n));
    MPI_Bcast(text.data(), int(n), MPI_CHAR, 0, comm_.get());
  }
  bool any(bool flag) const override { return comm_.any(flag); }
  std::unique_ptr<StepBackend> make_backend(
      const StepContext& ctx, Device requested,
      const std::vector<std::unique_ptr<PhysicsModule>>& modules,
      const MpiParams& mpi) const override {
    return make_rank_backend(ctx, requested, modules, mpi, comm_);
  }
  // Every field of every particle migrates to rank 0 (particle_exchange.hpp), which sorts them
  // by (type, id).
  ParticleStore gather(const ParticleStore& local) const override {
    ParticleStore all = local;
    migrate_particles(all, std::vector<int>(all.size(), 0), comm_);
    std::vector<std::size_t> perm(all.size());
    std::iota(perm.begin(), perm.end(), std::size_t(0));
    std::sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
      return all.type[a] != all.type[b] ? all.type[a] < all.type[b] : all.id[a] < all.id[b];
    });
    all.permute(perm);
    return all;
  }
  std::vector<uint64_t> all_gather(const std::vector<uint64_t>& local) const override {
    return comm_.all_gather(local, nullptr);
  }
  // Each value to rank value mod P, which finds its repeats among what it receives.
  std::optional<uint64_t> repeated(std::vector<uint64_t> values) const override {
    const std::size_t P = std::size_t(comm_.size());
    std::sort(values.begin(), values.end(),
              [P](uint64_t a, uint64_t b) { return a % P != b % P ? a % P < b % P : a < b; });
    std::vector<std::size_t> offsets(P + 1, 0);
    for (const uint64_t v : values) ++offsets[v % P + 1];
    for (std::size_t r = 0; r < P; ++r) offsets[r + 1] += offsets[r];
    std::vector<std::size_t> recv_offsets;
    const std::optional<uint64_t> mine =
        repeated_value(comm_.all_to_all(values, offsets, &recv_offsets));
    uint64_t in = mine ? *mine : UINT64_MAX, smallest = UINT64_MAX;
    MPI_Allreduce(&in, &smallest, 1, MPI_UINT64_T, MPI_MIN, comm_.get());
    // UINT64_MAX itself repeated is told apart by the count of ranks that found a repeat.
    if (!comm_.any(mine.has_value())) return std::nullopt;
    return smallest;
  }

 private:
  MpiComm comm_{MPI_COMM_WORLD};
};

}  // namespace

std::unique_ptr<Ranks> make_mpi_ranks() {
  return std::make_unique<MpiRanks>();
}

}  // namespace mpsph
