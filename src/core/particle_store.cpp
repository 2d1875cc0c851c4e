#include "core/particle_store.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>

namespace mpsph {

std::size_t ParticleStore::n_gas() const {
  if (pinned_n_gas_ != kNotPinned) return pinned_n_gas_;
  // Gas first (sort_by_type invariant): the first non-gas index.
  return static_cast<std::size_t>(
      std::partition_point(type.begin(), type.end(), [](uint8_t t) { return t == kGas; }) -
      type.begin());
}

std::array<std::size_t, kNumTypes> ParticleStore::count_by_type() const {
  std::array<std::size_t, kNumTypes> c{};
  for (uint8_t t : type)
    if (t < kNumTypes) ++c[t];
  return c;
}

void ParticleStore::pin_n_gas() {
  pinned_n_gas_ = kNotPinned;
  pinned_n_gas_ = n_gas();
}

void ParticleStore::resize(std::size_t n) {
  pinned_n_gas_ = kNotPinned;
  for_each_field([n](const FieldInfo&, auto& v) { v.resize(n); });
}

void ParticleStore::permute(const std::vector<std::size_t>& perm) {
  pinned_n_gas_ = kNotPinned;
  // Only the entries that change move (a re-sort of slowly moving particles, or ghosts placed
  // among fixed local particles, changes few), one field at a time through a scratch array that
  // is neither zeroed nor kept; large stores copy on the OpenMP threads.
  std::vector<std::size_t> moved;
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != i) moved.push_back(i);
  const std::ptrdiff_t m = std::ptrdiff_t(moved.size());
  const std::size_t n = perm.size();
  for_each_field([&](const FieldInfo&, auto& v) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    static_assert(std::is_trivially_copyable_v<T>, "particle fields are plain values");
    std::unique_ptr<T[]> tmp(new T[moved.size()]);
#pragma omp parallel for schedule(static) if (m > 65536)
    for (std::ptrdiff_t k = 0; k < m; ++k) tmp[k] = v[perm[moved[std::size_t(k)]]];
#pragma omp parallel for schedule(static) if (m > 65536)
    for (std::ptrdiff_t k = 0; k < m; ++k) v[moved[std::size_t(k)]] = tmp[k];
    std::fill(v.begin() + std::ptrdiff_t(n), v.end(), T{});
  });
}

unsigned ParticleStore::varying_field_groups() const {
  unsigned varying = 0;
  const std::size_t n = size();
  // Byte comparison: a field is uniform when every particle holds the first one's bits.
#define MPSPH_FIELD_VARIES(name, T, h5, dim, pers, types, group, desc)            \
  if (unsigned(group) != kCoreFields && !(varying & unsigned(group)) && n > 1) {  \
    const unsigned char* b = reinterpret_cast<const unsigned char*>(name.data()); \
    for (std::size_t i = 1; i < n; ++i)                                           \
      if (std::memcmp(b, b + i * sizeof(T), sizeof(T)) != 0) {                    \
        varying |= unsigned(group);                                               \
        break;                                                                    \
      }                                                                           \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_VARIES)
#undef MPSPH_FIELD_VARIES
  return varying;
}

bool ParticleStore::sort_by_type() {
  pinned_n_gas_ = kNotPinned;
  if (std::is_sorted(type.begin(), type.end())) return false;
  std::vector<std::size_t> perm(size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [this](std::size_t a, std::size_t b) { return type[a] < type[b]; });
  permute(perm);
  return true;
}

ParticleView ParticleStore::view() {
  ParticleView v{};
#define MPSPH_VIEW_ASSIGN(name, ...) v.name = name.data();
  MPSPH_PARTICLE_FIELDS(MPSPH_VIEW_ASSIGN)
#undef MPSPH_VIEW_ASSIGN
  v.n = size();
  v.n_gas = n_gas();
  return v;
}

std::vector<FieldInfo> particle_field_table() {
  std::vector<FieldInfo> t;
  ParticleStore empty;
  empty.for_each_field([&t](const FieldInfo& f, auto&) { t.push_back(f); });
  return t;
}

}  // namespace mpsph
