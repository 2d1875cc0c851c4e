// Structure-of-arrays particle store, generated from the field table (particle_fields.hpp).
//
// Invariant kept by the `order` stage: particles are sorted by type, so gas (type 0) occupies
// [0, n_gas) and the SPH loops never test the type. Between two order stages a physics stage may
// change a particle's type in place, mark it kRemoved, or ask for a new particle (spawn_mass); the
// next order stage applies these (run/particle_changes.hpp) and restores the invariant.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_fields.hpp"

namespace mpsph {

enum ParticleType : uint8_t {
  kGas = 0,
  kDarkMatter = 1,
  kCloud = 2,
  kOldStar = 3,
  kNewStar = 4,
  kSink = 5,
};
constexpr int kNumTypes = 6;
// A particle whose `type` is set to kRemoved (by a stage that has given its mass, momentum and
// energy elsewhere, e.g. a sink that swallowed it) is dropped by the next order stage. It belongs
// to no TypeMask and no count_by_type() entry.
constexpr uint8_t kRemoved = kNumTypes;

struct FieldInfo {
  const char* member;     // C++ member name, e.g. "pos"
  const char* hdf5_name;  // dataset name in snapshots ("" = never written)
  UnitDim dim;
  Persistence persistence;
  unsigned types;  // TypeMask
  unsigned group;  // FieldGroup (the device group)
  const char* description;
};

// Raw-pointer view of the store for kernels (host or device pointers), generated from the table.
struct ParticleView {
#define MPSPH_VIEW_MEMBER(name, T, ...) T* name;
  MPSPH_PARTICLE_FIELDS(MPSPH_VIEW_MEMBER)
#undef MPSPH_VIEW_MEMBER
  std::size_t n;
  std::size_t n_gas;
};

class ParticleStore {
 public:
#define MPSPH_STORE_MEMBER(name, T, ...) std::vector<T> name;
  MPSPH_PARTICLE_FIELDS(MPSPH_STORE_MEMBER)
#undef MPSPH_STORE_MEMBER

  std::size_t size() const {
    return mass.size();
  }
  // Number of gas particles; valid after sort_by_type() (or when built gas-first). After
  // pin_n_gas() it stays the value of that moment until the next resize(), permute() or
  // sort_by_type(): a stage that changes a gas particle's type in place (a sink forms, gas is
  // accreted) leaves the gas range [0, n_gas) of the last order stage as it was, for the stages
  // that follow it until the next order stage (a search for the first non-gas type would then
  // stop at the changed particle).
  std::size_t n_gas() const;
  void pin_n_gas();
  // Particles of each type (kRemoved ones are not counted).
  std::array<std::size_t, kNumTypes> count_by_type() const;

  void resize(std::size_t n);
  // Reorders every field: new[i] = old[perm[i]] for i < perm.size() (entries from perm.size() on
  // become zero; a caller that shrinks the store resizes it next). Only the span of entries
  // with perm[i] != i is copied (on the OpenMP threads when large).
  void permute(const std::vector<std::size_t>& perm);
  // Every field of particle from_index[k] of `from` into particle into_index[k] of this store, for
  // k < from_index.size() (this store must be large enough; the two lists have the same length).
  void copy_particles(const ParticleStore& from, const std::vector<uint32_t>& from_index,
                      const std::vector<uint32_t>& into_index);
  // Appends particles [first, end) of `from`, every field (first <= end <= from.size()).
  void append(const ParticleStore& from, std::size_t first, std::size_t end);
  // Stable sort by particle type (gas first); returns true if anything moved.
  bool sort_by_type();
  // The optional field groups (FieldGroup) in which some field's value differs between two
  // particles: a GPU run keeps those on the device whatever its modules use.
  unsigned varying_field_groups() const;
  // A 64-bit hash (FNV-1a) of the first particle's bytes of every field in the optional `groups`
  // (0 for an empty store): whether groups uniform on two stores hold the same value there.
  uint64_t field_group_signature(unsigned groups) const;
  ParticleView view();

  // Calls f(const FieldInfo&, std::vector<T>&) for every field in table order.
  template <class F>
  void for_each_field(F&& f) {
#define MPSPH_VISIT(name, T, h5, dim, pers, types, group, desc) \
  f(FieldInfo{#name, h5, dim, pers, types, group, desc}, name);
    MPSPH_PARTICLE_FIELDS(MPSPH_VISIT)
#undef MPSPH_VISIT
  }
  template <class F>
  void for_each_field(F&& f) const {
#define MPSPH_VISIT(name, T, h5, dim, pers, types, group, desc) \
  f(FieldInfo{#name, h5, dim, pers, types, group, desc}, name);
    MPSPH_PARTICLE_FIELDS(MPSPH_VISIT)
#undef MPSPH_VISIT
  }

 private:
  static constexpr std::size_t kNotPinned = ~std::size_t{0};
  std::size_t pinned_n_gas_ = kNotPinned;
};

// The table, for documentation and for code that needs the list without a store.
std::vector<FieldInfo> particle_field_table();

}  // namespace mpsph
