// Particle sets for the MPI tests: the same global set on every rank (counter-based random
// numbers of the particle index), of which each rank keeps a scattered share before the
// decomposition - the worst start for the migration.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/particle_store.hpp"
#include "core/rng.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph::test {

// The particles i of `all` with i % P == rank, every field copied.
inline ParticleStore scattered_share(const ParticleStore& all, const MpiComm& comm) {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (int(i % std::size_t(comm.size())) == comm.rank()) keep.push_back(i);
  ParticleStore s = all;
  s.permute(keep);
  s.resize(keep.size());
  return s;
}

// Every byte of every field of every particle set from the particle's id and the field's place
// in the table, positions, types and ids excepted (kept as given): a field that is dropped,
// swapped or shifted in an exchange cannot keep its value.
inline void fill_every_field(ParticleStore& s, uint64_t seed) {
  int field = 0;
  s.for_each_field([&](const FieldInfo& f, auto& v) {
    ++field;
    if (std::strcmp(f.member, "type") == 0 || std::strcmp(f.member, "id") == 0 ||
        std::strcmp(f.member, "pos") == 0)
      return;
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    for (std::size_t i = 0; i < v.size(); ++i) {
      unsigned char bytes[sizeof(T)];
      for (std::size_t b = 0; b < sizeof(T); ++b)
        bytes[b] = uint8_t(random_bits(s.id[i], seed, uint32_t(field), uint32_t(b)));
      std::memcpy(&v[i], bytes, sizeof(T));
    }
  });
}

}  // namespace mpsph::test
