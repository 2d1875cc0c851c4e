#include "core/particle_store.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/select_indices.hpp"

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

namespace {

// Loops on the OpenMP threads only when there is enough to do: 65536 entries for the scan of the
// permutation, 128 KiB of one field for a copy (a halo's permute of ~5e4 particles moves ~30 MB
// over the fields: serial, it cost 2.5 ms; on 2 threads 1.3 ms).
constexpr std::ptrdiff_t kParallelCopy = 65536;
constexpr std::size_t kParallelCopyBytes = std::size_t(1) << 17;

// The entries i with perm[i] != i: how many, the first and one past the last.
struct Changed {
  std::size_t count = 0, first = 0, end = 0;
};

Changed changed_entries(const std::vector<std::size_t>& perm) {
  const std::ptrdiff_t n = std::ptrdiff_t(perm.size());
  std::size_t count = 0, first = perm.size(), last = 0;
#pragma omp parallel for schedule(static) reduction(+ : count) reduction(min : first) \
    reduction(max : last) if (n > kParallelCopy)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (perm[std::size_t(i)] != std::size_t(i)) {
      ++count;
      first = std::min(first, std::size_t(i));
      last = std::max(last, std::size_t(i));
    }
  return count ? Changed{count, first, last + 1} : Changed{};
}

}  // namespace

void ParticleStore::permute(const std::vector<std::size_t>& perm) {
  pinned_n_gas_ = kNotPinned;
  // Only the span of entries that change is copied, one field at a time through one scratch
  // buffer (allocated once for all fields, neither zeroed nor kept), on the OpenMP threads for
  // large spans. Dense: most of the span changes (an order stage after drift or migration): the
  // span is gathered with perm read in order and copied back in order (entries that keep their
  // place are copied onto themselves). Sparse: a few entries change (ghosts placed among fixed
  // local particles): only those, through their list.
  const std::size_t n = perm.size();
  const Changed c = changed_entries(perm);
  const std::size_t span = c.end - c.first;
  const bool dense = 2 * c.count >= span;
  const std::vector<std::size_t> moved =
      dense ? std::vector<std::size_t>{}
            : select_indices<std::size_t>(c.first, c.end,
                                          [&](std::size_t i) { return perm[i] != i; });
  const std::ptrdiff_t m = std::ptrdiff_t(dense ? span : c.count);
  std::size_t item = 1;
  for_each_field([&](const FieldInfo&, auto& v) {
    item = std::max(item, sizeof(typename std::remove_reference_t<decltype(v)>::value_type));
  });
  std::unique_ptr<unsigned char[]> scratch(new unsigned char[std::size_t(m) * item]);
  for_each_field([&](const FieldInfo&, auto& v) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    static_assert(std::is_trivially_copyable_v<T>, "particle fields are plain values");
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "scratch buffer alignment");
    T* tmp = reinterpret_cast<T*>(scratch.get());
    T* data = v.data();
    const bool threads = std::size_t(m) * sizeof(T) >= kParallelCopyBytes;
    if (dense) {
      const std::size_t* src = perm.data() + c.first;
#pragma omp parallel for schedule(static) if (threads)
      for (std::ptrdiff_t k = 0; k < m; ++k) tmp[k] = data[src[k]];
#pragma omp parallel for schedule(static) if (threads)
      for (std::ptrdiff_t k = 0; k < m; ++k) data[c.first + std::size_t(k)] = tmp[k];
    } else {
#pragma omp parallel for schedule(static) if (threads)
      for (std::ptrdiff_t k = 0; k < m; ++k) tmp[k] = data[perm[moved[std::size_t(k)]]];
#pragma omp parallel for schedule(static) if (threads)
      for (std::ptrdiff_t k = 0; k < m; ++k) data[moved[std::size_t(k)]] = tmp[k];
    }
    std::fill(v.begin() + std::ptrdiff_t(n), v.end(), T{});
  });
}

namespace {

template <class T>
void copy_field(const std::vector<T>& src, const std::vector<uint32_t>& from_index,
                std::vector<T>& dst, const std::vector<uint32_t>& into_index) {
  const std::ptrdiff_t m = std::ptrdiff_t(from_index.size());
  const bool threads = std::size_t(m) * sizeof(T) >= kParallelCopyBytes;
#pragma omp parallel for schedule(static) if (threads)
  for (std::ptrdiff_t k = 0; k < m; ++k)
    dst[into_index[std::size_t(k)]] = src[from_index[std::size_t(k)]];
}

}  // namespace

void ParticleStore::copy_particles(const ParticleStore& from,
                                   const std::vector<uint32_t>& from_index,
                                   const std::vector<uint32_t>& into_index) {
  if (from_index.size() != into_index.size())
    throw Error("ParticleStore::copy_particles: " + std::to_string(from_index.size()) +
                " sources for " + std::to_string(into_index.size()) + " destinations");
#define MPSPH_COPY_FIELD(name, T, h5, dim, pers, types, group, desc) \
  copy_field(from.name, from_index, name, into_index);
  MPSPH_PARTICLE_FIELDS(MPSPH_COPY_FIELD)
#undef MPSPH_COPY_FIELD
}

void ParticleStore::append(const ParticleStore& from, std::size_t first, std::size_t end) {
  if (first > end || end > from.size())
    throw Error("ParticleStore::append: rows [" + std::to_string(first) + ", " +
                std::to_string(end) + ") of a store of " + std::to_string(from.size()));
  const std::size_t at = size(), n = end - first;
  std::vector<uint32_t> from_index(n), into_index(n);
  for (std::size_t k = 0; k < n; ++k)
    from_index[k] = uint32_t(first + k), into_index[k] = uint32_t(at + k);
  resize(at + n);
  copy_particles(from, from_index, into_index);
}

unsigned ParticleStore::varying_field_groups() const {
  unsigned varying = 0;
  const std::size_t n = size();
  // Byte comparison: a field is uniform when every particle holds the first one's bits.
  for_each_field([&](const FieldInfo& info, const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if (info.group == kCoreFields || (varying & info.group) || n < 2) return;
    const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t i = 1; i < n; ++i)
      if (std::memcmp(b, b + i * sizeof(T), sizeof(T)) != 0) {
        varying |= info.group;
        return;
      }
  });
  return varying;
}

uint64_t ParticleStore::field_group_signature(unsigned groups) const {
  if (size() == 0) return 0;
  uint64_t h = 1469598103934665603ull;
  for_each_field([&](const FieldInfo& info, const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if (info.group == kCoreFields || !(info.group & groups)) return;
    const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t k = 0; k < sizeof(T); ++k) h = (h ^ b[k]) * 1099511628211ull;
  });
  return h;
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
