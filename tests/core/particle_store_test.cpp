// Particle store: resize, permute and sort_by_type move every field of the table together; view()
// exposes the same storage. Each particle's fields are filled from its id, so after any reordering
// every field must still agree with the id stored beside it.
#include "core/particle_store.hpp"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"

using namespace mpsph;

namespace {

// A value for field number f of the particle with id `id`, distinct across fields and ids.
template <class T>
T tag_value(std::size_t f, uint64_t id) {
  const double v = double(f) * 1000.0 + double(id);
  if constexpr (std::is_same_v<T, Vec3d> || std::is_same_v<T, Vec3f>) {
    using S = decltype(T::x);
    return T{S(v), S(v + 0.25), S(v + 0.5)};
  } else if constexpr (std::is_integral_v<T>) {
    // Modulo 2^bits for narrow types (uint8 fields): converting the double directly is undefined
    // behaviour once v exceeds the type's range (UBSan, the asan preset).
    return T(uint64_t(v));
  } else {
    return T(v);
  }
}

// Fills every field (except id and type) of particle i from id[i].
void fill_from_ids(ParticleStore& s) {
  std::size_t f = 0;
  s.for_each_field([&](const FieldInfo& info, auto& v) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    ++f;
    if (std::string(info.member) == "id" || std::string(info.member) == "type") return;
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = tag_value<T>(f, s.id[i]);
  });
}

// Number of (field, particle) entries that disagree with the particle's id.
std::size_t mismatches(ParticleStore& s) {
  std::size_t f = 0, bad = 0;
  s.for_each_field([&](const FieldInfo& info, auto& v) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    ++f;
    if (std::string(info.member) == "id" || std::string(info.member) == "type") return;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T want = tag_value<T>(f, s.id[i]);
      if constexpr (std::is_same_v<T, Vec3d> || std::is_same_v<T, Vec3f>) {
        bad += !(v[i].x == want.x && v[i].y == want.y && v[i].z == want.z);
      } else {
        bad += !(v[i] == want);
      }
    }
  });
  return bad;
}

// A store of n particles with ids 0..n-1 and types cycling through a non-sorted pattern.
ParticleStore make_store(std::size_t n) {
  ParticleStore s;
  s.resize(n);
  const uint8_t pattern[] = {3, 0, 1, 0, 5, 2, 0, 4, 1};
  for (std::size_t i = 0; i < n; ++i) {
    s.id[i] = i;
    s.type[i] = pattern[i % 9];
  }
  fill_from_ids(s);
  return s;
}

}  // namespace

TEST_CASE("particle store: resize gives every field the same length", "[core][store]") {
  ParticleStore s;
  s.resize(37);
  std::size_t fields = 0;
  s.for_each_field([&](const FieldInfo&, auto& v) {
    CHECK(v.size() == 37);
    ++fields;
  });
  CHECK(s.size() == 37);
  CHECK(fields == particle_field_table().size());
  s.resize(5);
  s.for_each_field([&](const FieldInfo&, auto& v) { CHECK(v.size() == 5); });
}

TEST_CASE("particle store: permute moves every field together", "[core][store]") {
  ParticleStore s = make_store(100);
  REQUIRE(mismatches(s) == 0);
  // new[i] = old[perm[i]]: a reversal composed with a stride-7 shuffle (7 is coprime to 100).
  std::vector<std::size_t> perm(100);
  for (std::size_t i = 0; i < 100; ++i) perm[i] = (99 - i) * 7 % 100;
  s.permute(perm);
  for (std::size_t i = 0; i < 100; ++i) REQUIRE(s.id[i] == perm[i]);
  CHECK(mismatches(s) == 0);
}

TEST_CASE("particle store: permute of a large store, dense and sparse, and shrinking",
          "[core][store]") {
  // Above the size from which permute copies on the OpenMP threads (65 536 entries), both of its
  // paths: a shift of most entries (dense: the changed span is copied whole) and a few swaps
  // far apart (sparse: only the listed entries), and a perm shorter than the store.
  const std::size_t n = 200000;
  SECTION("dense: a rotation of [1000, n) by 7") {
    ParticleStore s = make_store(n);
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i < 1000 ? i : 1000 + (i - 1000 + 7) % (n - 1000);
    s.permute(perm);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(s.id[i] == perm[i]);
    CHECK(mismatches(s) == 0);
  }
  SECTION("sparse: 100 swaps spread over the store") {
    ParticleStore s = make_store(n);
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    for (std::size_t k = 0; k < 100; ++k) std::swap(perm[k * 1999], perm[n - 1 - k * 1999]);
    s.permute(perm);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(s.id[i] == perm[i]);
    CHECK(mismatches(s) == 0);
  }
  SECTION("shrinking: keep every third particle, then resize") {
    ParticleStore s = make_store(n);
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < n; i += 3) keep.push_back(i);
    s.permute(keep);
    for (std::size_t i = keep.size(); i < n; ++i) REQUIRE(s.mass[i] == 0.0);  // beyond: zero
    s.resize(keep.size());
    for (std::size_t i = 0; i < keep.size(); ++i) REQUIRE(s.id[i] == keep[i]);
    CHECK(mismatches(s) == 0);
  }
}

TEST_CASE("particle store: copy_particles copies every field of the listed particles",
          "[core][store]") {
  // Large enough for the threaded copy of the wider fields (128 KiB: 5 462 Vec3d).
  const ParticleStore from = make_store(20000);
  ParticleStore into = make_store(9000);
  for (std::size_t i = 0; i < into.size(); ++i) into.id[i] = 1000000 + i;
  fill_from_ids(into);
  std::vector<uint32_t> src, dst;
  for (uint32_t k = 0; k < 8000; ++k) src.push_back(19999 - 2 * k), dst.push_back(8999 - k);
  into.copy_particles(from, src, dst);
  // Every field of a copied particle follows its id (fill_from_ids), so one id check per
  // particle plus mismatches() covers every field.
  for (std::size_t k = 0; k < dst.size(); ++k) {
    REQUIRE(into.id[dst[k]] == from.id[src[k]]);
    REQUIRE(into.type[dst[k]] == from.type[src[k]]);
  }
  for (std::size_t i = 0; i < 1000; ++i) REQUIRE(into.id[i] == 1000000 + i);  // not listed
  CHECK(mismatches(into) == 0);
  CHECK_THROWS_AS(into.copy_particles(from, src, std::vector<uint32_t>(3)), Error);
}

TEST_CASE("particle store: append adds the rows of another store, every field", "[core][store]") {
  const ParticleStore a = make_store(3000);
  ParticleStore b = make_store(500);
  for (std::size_t k = 0; k < b.size(); ++k) b.id[k] = 100000 + k;
  fill_from_ids(b);
  ParticleStore s;
  s.append(a, 1000, 2500);
  s.append(b, 0, 500);
  s.append(a, 7, 7);  // none
  REQUIRE(s.size() == 2000);
  for (std::size_t k = 0; k < 1500; ++k) REQUIRE(s.id[k] == a.id[1000 + k]);
  for (std::size_t k = 0; k < 500; ++k)
    REQUIRE((s.id[1500 + k] == 100000 + k && s.type[1500 + k] == b.type[k]));
  CHECK(mismatches(s) == 0);  // every field follows its particle's id (fill_from_ids)
  CHECK_THROWS_AS(s.append(a, 2000, 3001), Error);
  CHECK_THROWS_AS(s.append(a, 20, 10), Error);
}

TEST_CASE("particle store: sort_by_type puts gas first, stable, fields consistent",
          "[core][store]") {
  ParticleStore s = make_store(90);
  const auto counts = s.count_by_type();
  // Pattern {3,0,1,0,5,2,0,4,1} repeated 10 times.
  CHECK(counts[kGas] == 30);
  CHECK(counts[kDarkMatter] == 20);
  CHECK(counts[kSink] == 10);
  REQUIRE(s.sort_by_type());
  CHECK(s.count_by_type() == counts);
  CHECK(s.n_gas() == 30);
  for (std::size_t i = 1; i < s.size(); ++i) {
    REQUIRE(s.type[i - 1] <= s.type[i]);
    // Stable: original order (= id order) kept within a type.
    if (s.type[i - 1] == s.type[i]) REQUIRE(s.id[i - 1] < s.id[i]);
  }
  for (std::size_t i = 0; i < s.size(); ++i) REQUIRE((s.type[i] == kGas) == (i < 30));
  CHECK(mismatches(s) == 0);
  // Already sorted: nothing moves.
  CHECK_FALSE(s.sort_by_type());
}

TEST_CASE("particle store: view() points at the storage", "[core][store]") {
  ParticleStore s = make_store(45);
  s.sort_by_type();
  const ParticleView v = s.view();
  CHECK(v.n == 45);
  CHECK(v.n_gas == 15);
  CHECK(v.pos == s.pos.data());
  CHECK(v.mass == s.mass.data());
  CHECK(v.h == s.h.data());
  CHECK(v.dudt0 == s.dudt0.data());
  // Writing through the view is writing the store.
  v.mass[3] = -1.0;
  CHECK(s.mass[3] == -1.0);

  ParticleStore none = make_store(0);
  CHECK(none.n_gas() == 0);
  CHECK(none.view().n == 0);
}

TEST_CASE("particle store: varying_field_groups names the optional groups whose values differ",
          "[core][store]") {
  ParticleStore s;
  s.resize(100);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.id[i] = i;  // core fields vary freely: never reported
    s.pos[i] = {double(i), 0.0, 0.0};
    s.x_h[i] = 0.76;  // every optional field the same on every particle
  }
  CHECK(s.varying_field_groups() == 0u);
  s.z_o[99] = 1e-3;  // one particle differs in one field of a group (the last one)
  CHECK(s.varying_field_groups() == unsigned(kMetalFields));
  s.spin[0] = {0.0, 0.0, -0.0};  // -0.0 is not +0.0 bit for bit: the group must stay on
  CHECK(s.varying_field_groups() == unsigned(kMetalFields | kSinkFields));
  s.spawn_type[50] = 4;
  s.coalescence_step[3] = 7;
  s.birth_time[1] = 0.5;
  CHECK(s.varying_field_groups() == unsigned(kAllFieldGroups));
  ParticleStore one;
  one.resize(1);
  one.x_h[0] = 0.5;
  CHECK(one.varying_field_groups() == 0u);  // a single particle is uniform
}

// Two ranks' stores, each uniform in its optional groups: the signatures tell whether the one
// value is the same on both (parallel GPU ranks then leave the group on the host).
TEST_CASE("particle store: field_group_signature compares the uniform values of groups",
          "[core][store]") {
  auto store = [](std::size_t n, double x_h, uint64_t id0) {
    ParticleStore s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) s.id[i] = id0 + i, s.x_h[i] = x_h;
    return s;
  };
  const ParticleStore a = store(10, 0.76, 0), b = store(20, 0.76, 1000), c = store(10, 0.7, 0);
  // Core fields (ids, positions) do not enter; the metals' value does, only in its group.
  CHECK(a.field_group_signature(kMetalFields) == b.field_group_signature(kMetalFields));
  CHECK(a.field_group_signature(kMetalFields) != c.field_group_signature(kMetalFields));
  CHECK(a.field_group_signature(kStarFields) == c.field_group_signature(kStarFields));
  CHECK(a.field_group_signature(kAllFieldGroups) != c.field_group_signature(kAllFieldGroups));
  CHECK(ParticleStore{}.field_group_signature(kAllFieldGroups) == 0u);
}
