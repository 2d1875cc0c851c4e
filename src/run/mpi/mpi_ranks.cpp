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
  // Each item to rank item_rank, which finds its repeats among what it receives; the smallest of
  // the ranks' first repeats is everyone's.
  std::optional<std::vector<uint64_t>> repeated(std::vector<uint64_t> words,
                                                std::size_t k) const override {
    const std::size_t P = std::size_t(comm_.size()), n = k > 0 ? words.size() / k : 0;
    std::vector<std::size_t> rank_of(n), offsets(P + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      rank_of[i] = item_rank(words.data() + i * k, k, P);
      offsets[rank_of[i] + 1] += k;
    }
    for (std::size_t r = 0; r < P; ++r) offsets[r + 1] += offsets[r];
    std::vector<uint64_t> send(words.size());
    std::vector<std::size_t> at(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      std::copy_n(words.begin() + std::ptrdiff_t(i * k), k,
                  send.begin() + std::ptrdiff_t(at[rank_of[i]]));
      at[rank_of[i]] += k;
    }
    std::vector<std::size_t> recv_offsets;
    const std::optional<std::vector<uint64_t>> mine =
        repeated_item(comm_.all_to_all(send, offsets, &recv_offsets), k);
    // Every rank's (found, item) side by side.
    std::vector<uint64_t> note(k + 1, 0);
    if (mine) {
      note[0] = 1;
      std::copy(mine->begin(), mine->end(), note.begin() + 1);
    }
    const std::vector<uint64_t> all = comm_.all_gather(note, nullptr);
    std::optional<std::vector<uint64_t>> smallest;
    for (std::size_t r = 0; r < P; ++r) {
      const auto b = all.begin() + std::ptrdiff_t(r * (k + 1));
      if (b[0] == 0) continue;
      std::vector<uint64_t> item(b + 1, b + std::ptrdiff_t(k + 1));
      if (!smallest || item < *smallest) smallest = std::move(item);
    }
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
